import { type FormEvent, useState } from 'react';
import { BOT_MESSAGE_KEYS, BOT_VARIABLES } from '#contract/botSettings';
import { BOT_MESSAGE_LABELS, updateBotSettingsSchema } from '#contract/botSettings';
import { Banner, CountedLabel, FormActions } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { BotMessages } from './api';

const BOT_MESSAGE_MAX = 1000;

/** The nine bot texts of docs/product.md section 3, each at most 1000 characters with its counter. */
export function BotMessagesForm({
  messages,
  saving,
  error,
  onSubmit,
  onReset,
  onCancel,
}: {
  messages: BotMessages;
  saving: boolean;
  error: string | null;
  onSubmit: (messages: BotMessages) => void;
  onReset: () => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<BotMessages>(messages);
  const [errors, setErrors] = useState<FieldErrors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkWith(updateBotSettingsSchema, { messages: draft });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(draft);
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <p className="hint">Variables you can use: {BOT_VARIABLES.map((name) => `{${name}}`).join(', ')}</p>
      {BOT_MESSAGE_KEYS.map((key) => {
        const message = errors[`messages.${key}`];
        return (
          <div className="field" key={key}>
            <CountedLabel htmlFor={`bot-${key}`} label={BOT_MESSAGE_LABELS[key]} length={draft[key].length} max={BOT_MESSAGE_MAX} />
            <textarea
              id={`bot-${key}`}
              rows={3}
              value={draft[key]}
              aria-invalid={message ? true : undefined}
              onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
            />
            {message && <span className="field-error">{message}</span>}
          </div>
        );
      })}
      <FormActions saving={saving} submitLabel="Save Messages" onCancel={onCancel}>
        <button type="button" className="button button-ghost" onClick={onReset} disabled={saving}>
          Reset to Defaults
        </button>
      </FormActions>
    </form>
  );
}
