import { type FormEvent, useState } from 'react';
import { createCannedSchema } from '#contract/canned';
import { Banner, FormActions } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { CannedMessage, Category } from '../../entities/ticket/types';
import type { CannedInput } from './api';

const CONTENT_MAX = 2000;

interface Draft {
  shortcode: string;
  title: string;
  category: string;
  content: string;
}

/**
 * The canned message form of docs/product.md sections 2 and 5 with the API's own messages: shortcode
 * (lower-cased as typed; letters, digits, underscores and hyphens; 2 to 50), title (under 100),
 * content (at most 2000, with its counter) and an optional category ('No Category').
 */
export function CannedForm({
  canned,
  categories,
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  canned: CannedMessage | null;
  categories: Category[];
  saving: boolean;
  error: string | null;
  onSubmit: (input: CannedInput) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(
    canned
      ? { shortcode: canned.shortcode, title: canned.title, category: canned.category?._id ?? 'none', content: canned.content }
      : { shortcode: '', title: '', category: 'none', content: '' },
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));
  // A message filed under a category that is no longer offered still shows it.
  const options =
    canned?.category && !categories.some((category) => category._id === canned.category?._id)
      ? [...categories, { _id: canned.category._id, name: canned.category.name }]
      : categories;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { category, ...fields } = draft;
    const chosen = category === 'none' ? (canned ? null : undefined) : category;
    const input: CannedInput = { ...fields, ...(chosen === undefined ? {} : { category: chosen }) };
    const checked = checkWith(createCannedSchema, input);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(input);
  };
  const problem = (name: keyof Draft) => errors[name] && <span className="field-error">{errors[name]}</span>;

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <div className="field">
        <label htmlFor="canned-shortcode">Shortcode</label>
        <div className="input-prefix">
          <span aria-hidden="true">#</span>
          <input
            id="canned-shortcode"
            value={draft.shortcode}
            maxLength={60}
            placeholder="e.g. greeting"
            aria-invalid={errors.shortcode ? true : undefined}
            onChange={(e) => set({ shortcode: e.target.value.toLowerCase() })}
          />
        </div>
        {errors.shortcode ? problem('shortcode') : <span className="hint">Used as #shortcode in chat</span>}
      </div>
      <div className="field">
        <label htmlFor="canned-title">Title</label>
        <input
          id="canned-title"
          value={draft.title}
          placeholder="A short name for this message"
          aria-invalid={errors.title ? true : undefined}
          onChange={(e) => set({ title: e.target.value })}
        />
        {problem('title')}
      </div>
      <div className="field">
        <label htmlFor="canned-category">Category</label>
        <select id="canned-category" value={draft.category} onChange={(e) => set({ category: e.target.value })}>
          <option value="none">No Category</option>
          {options.map((category) => (
            <option key={category._id} value={category._id}>
              {category.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="canned-content">Message Content</label>
        <textarea
          id="canned-content"
          rows={6}
          value={draft.content}
          aria-invalid={errors.content ? true : undefined}
          placeholder="The text inserted into the chat"
          onChange={(e) => set({ content: e.target.value })}
        />
        <span className={`counter ${draft.content.length > CONTENT_MAX ? 'over' : ''}`}>
          {draft.content.length}/{CONTENT_MAX} characters
        </span>
        {problem('content')}
      </div>
      <FormActions saving={saving} submitLabel={canned ? 'Update' : 'Create'} onCancel={onCancel} />
    </form>
  );
}
