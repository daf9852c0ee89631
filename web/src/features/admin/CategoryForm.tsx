import { type FormEvent, useState } from 'react';
import { createCategorySchema } from '#contract/categories';
import { Icon } from '../../components/icons';
import { Banner, FormActions, OrderAndActiveFields, TextField } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { Category } from '../../entities/ticket/types';
import type { Team } from '../../entities/team/api';
import type { CategoryInput, CustomField } from './api';

const FIELD_TYPES: Array<{ value: CustomField['fieldType']; label: string }> = [
  { value: 'text', label: 'Text' },
  { value: 'textarea', label: 'Text area' },
  { value: 'number', label: 'Number' },
];

interface FieldDraft {
  key: number;
  fieldName: string;
  fieldType: CustomField['fieldType'];
  prompt: string;
  placeholder: string;
  required: boolean;
  minLength: string;
  maxLength: string;
  min: string;
  max: string;
  pattern?: string;
}

interface Draft {
  name: string;
  description: string;
  color: string;
  order: string;
  isActive: boolean;
  /** "Route new tickets to team" (docs/teams.md): a team id, or '' for none. */
  routeTeamId: string;
  customFields: FieldDraft[];
}

let nextKey = 1;
const asText = (value: number | undefined) => (value === undefined ? '' : String(value));
/** An empty box means "no limit"; anything else must be a number (the schema says which). */
const asNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

const toDraft = (category: Category | null): Draft =>
  category
    ? {
        name: category.name,
        description: category.description,
        color: category.color,
        order: String(category.order),
        isActive: category.isActive,
        routeTeamId: category.routeTeamId ?? '',
        customFields: [...category.customFields]
          .sort((a, b) => a.order - b.order)
          .map((field) => ({
            key: nextKey++,
            fieldName: field.fieldName,
            fieldType: field.fieldType,
            prompt: field.prompt,
            placeholder: field.placeholder,
            required: field.required,
            minLength: asText(field.validation.minLength),
            maxLength: asText(field.validation.maxLength),
            min: asText(field.validation.min),
            max: asText(field.validation.max),
            pattern: field.validation.pattern,
          })),
      }
    : { name: '', description: '', color: '#007bff', order: '0', isActive: true, routeTeamId: '', customFields: [] };

/** The form's values as the API takes them; a field keeps only the limits of its type. */
function toCategoryInput(draft: Draft): CategoryInput {
  return {
    name: draft.name,
    description: draft.description,
    color: draft.color,
    order: asNumber(draft.order) ?? 0,
    isActive: draft.isActive,
    routeTeamId: draft.routeTeamId || null,
    customFields: draft.customFields.map((field, index) => {
      const limits =
        field.fieldType === 'number'
          ? { min: asNumber(field.min), max: asNumber(field.max) }
          : { minLength: asNumber(field.minLength), maxLength: asNumber(field.maxLength), pattern: field.pattern };
      return {
        fieldName: field.fieldName,
        fieldType: field.fieldType,
        prompt: field.prompt,
        placeholder: field.placeholder,
        required: field.required,
        validation: Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)),
        order: index,
      };
    }),
  };
}

/**
 * The category form of docs/product.md section 5: name required, description optional, a colour picker,
 * order a whole number from 0, and custom fields (name and prompt required; text, text area or
 * number; length limits from 0 for text types, value limits for numbers; a required toggle).
 */
export function CategoryForm({
  category,
  teams = [],
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  category: Category | null;
  /** The teams its new tickets may be routed to (docs/teams.md). */
  teams?: Team[];
  saving: boolean;
  error: string | null;
  onSubmit: (input: CategoryInput) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => toDraft(category));
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));
  const setField = (key: number, patch: Partial<FieldDraft>) =>
    set({ customFields: draft.customFields.map((field) => (field.key === key ? { ...field, ...patch } : field)) });
  const addField = () =>
    set({
      customFields: [
        ...draft.customFields,
        { key: nextKey++, fieldName: '', fieldType: 'text', prompt: '', placeholder: '', required: true, minLength: '', maxLength: '', min: '', max: '' },
      ],
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = toCategoryInput(draft);
    const checked = checkWith(createCategorySchema, input);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(input);
  };
  const problem = (path: string) => errors[path] && <span className="field-error">{errors[path]}</span>;

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <TextField id="category-name" label="Name" maxLength={100} value={draft.name} error={errors.name} onChange={(name) => set({ name })} />
      <div className="field">
        <label htmlFor="category-description">Description</label>
        <textarea id="category-description" rows={2} maxLength={500} value={draft.description} onChange={(e) => set({ description: e.target.value })} />
        {problem('description')}
      </div>
      <div className="form-row">
        <div className="field">
          <label htmlFor="category-color">Colour</label>
          <input id="category-color" type="color" className="color-input" value={draft.color} onChange={(e) => set({ color: e.target.value })} />
          {problem('color')}
        </div>
        <OrderAndActiveFields
          idPrefix="category"
          order={draft.order}
          isActive={draft.isActive}
          orderError={errors.order}
          onOrder={(order) => set({ order })}
          onActive={(isActive) => set({ isActive })}
        />
      </div>
      <div className="field">
        <label htmlFor="category-route-team">Route new tickets to team</label>
        <select id="category-route-team" value={draft.routeTeamId} onChange={(e) => set({ routeTeamId: e.target.value })}>
          <option value="">No team</option>
          {teams.map((team) => (
            <option key={team._id} value={team._id}>
              {team.name}
            </option>
          ))}
        </select>
        {problem('routeTeamId')}
      </div>

      <fieldset className="custom-fields">
        <legend>Custom Fields</legend>
        {draft.customFields.length === 0 && <p className="muted small">No custom fields. Tickets in this category ask only for title and description.</p>}
        {problem('customFields')}
        {draft.customFields.map((field, index) => {
          const id = (name: string) => `field-${field.key}-${name}`;
          const path = (name: string) => `customFields.${index}.${name}`;
          return (
            <div className="custom-field" key={field.key} role="group" aria-label={`Custom field ${index + 1}`}>
              <div className="form-row">
                <div className="field">
                  <label htmlFor={id('name')}>Field Name</label>
                  <input
                    id={id('name')}
                    value={field.fieldName}
                    maxLength={50}
                    placeholder="e.g. orderNumber"
                    onChange={(e) => setField(field.key, { fieldName: e.target.value })}
                  />
                  {problem(path('fieldName'))}
                </div>
                <div className="field">
                  <label htmlFor={id('type')}>Field Type</label>
                  <select
                    id={id('type')}
                    value={field.fieldType}
                    onChange={(e) => setField(field.key, { fieldType: e.target.value as CustomField['fieldType'] })}
                  >
                    {FIELD_TYPES.map((type) => (
                      <option key={type.value} value={type.value}>
                        {type.label}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
              <div className="field">
                <label htmlFor={id('prompt')}>Prompt</label>
                <input
                  id={id('prompt')}
                  value={field.prompt}
                  maxLength={200}
                  placeholder="The question the customer sees"
                  onChange={(e) => setField(field.key, { prompt: e.target.value })}
                />
                {problem(path('prompt'))}
              </div>
              <div className="field">
                <label htmlFor={id('placeholder')}>Placeholder</label>
                <input
                  id={id('placeholder')}
                  value={field.placeholder}
                  maxLength={200}
                  onChange={(e) => setField(field.key, { placeholder: e.target.value })}
                />
              </div>
              {field.fieldType === 'number' ? (
                <div className="form-row">
                  <div className="field">
                    <label htmlFor={id('min')}>Min Value</label>
                    <input id={id('min')} type="number" value={field.min} onChange={(e) => setField(field.key, { min: e.target.value })} />
                    {problem(path('validation.min'))}
                  </div>
                  <div className="field">
                    <label htmlFor={id('max')}>Max Value</label>
                    <input id={id('max')} type="number" value={field.max} onChange={(e) => setField(field.key, { max: e.target.value })} />
                    {problem(path('validation.max'))}
                  </div>
                </div>
              ) : (
                <div className="form-row">
                  <div className="field">
                    <label htmlFor={id('minLength')}>Min Length</label>
                    <input
                      id={id('minLength')}
                      type="number"
                      min={0}
                      step={1}
                      value={field.minLength}
                      onChange={(e) => setField(field.key, { minLength: e.target.value })}
                    />
                    {problem(path('validation.minLength'))}
                  </div>
                  <div className="field">
                    <label htmlFor={id('maxLength')}>Max Length</label>
                    <input
                      id={id('maxLength')}
                      type="number"
                      min={0}
                      step={1}
                      value={field.maxLength}
                      onChange={(e) => setField(field.key, { maxLength: e.target.value })}
                    />
                    {problem(path('validation.maxLength'))}
                  </div>
                </div>
              )}
              {problem(path('validation'))}
              <div className="custom-field-foot">
                <label className="toggle">
                  <input type="checkbox" checked={field.required} onChange={(e) => setField(field.key, { required: e.target.checked })} />
                  Required
                </label>
                <button
                  type="button"
                  className="button button-ghost button-small"
                  onClick={() => set({ customFields: draft.customFields.filter((other) => other.key !== field.key) })}
                >
                  <Icon name="trash" size={14} /> Remove Field
                </button>
              </div>
            </div>
          );
        })}
        <button type="button" className="button button-secondary button-small" onClick={addField}>
          <Icon name="plus" size={14} /> Add Field
        </button>
      </fieldset>

      <FormActions saving={saving} submitLabel={category ? 'Update Category' : 'Create Category'} onCancel={onCancel} />
    </form>
  );
}
