import { type FormEvent, useState } from 'react';
import { HANDLERS } from '#contract/botCommands';
import { normalise } from '#contract/botCommands';
import { createBotCommandSchema, updateBotCommandSchema } from '#contract/botCommands';
import { ValidationError } from '#contract/errors';
import { Banner, CountedLabel, FormActions, OrderAndActiveFields } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { BotCommand, BotCommandInput } from './api';

const DESCRIPTION_MAX = 256;
const RESPONSE_MAX = 2000;

const HANDLER_LABELS: Record<BotCommand['handler'], string> = {
  start: 'Start (welcome message)',
  help: 'Help (list of commands)',
  ticket: 'Ticket (open a new ticket)',
  mytickets: 'My tickets (list tickets)',
  search: 'Search (the customer’s own tickets by words)',
  cancel: 'Cancel (stop the current step)',
  custom: 'Custom response',
};

/** docs/product.md section 5: only lowercase letters and underscores; anything else is dropped as it is typed. */
const cleanCommandName = (typed: string) => typed.toLowerCase().replace(/[^a-z_]/g, '');

interface Draft {
  command: string;
  description: string;
  handler: BotCommand['handler'];
  response: string;
  order: string;
  isActive: boolean;
}

/**
 * The bot command form of docs/product.md section 5: name required (locked for system commands),
 * description required and at most 256, a handler, a custom response (only for the custom handler,
 * at most 2000), order a whole number from 0, and the active toggle.
 */
export function BotCommandForm({
  command,
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  command: BotCommand | null;
  saving: boolean;
  error: string | null;
  onSubmit: (input: BotCommandInput) => void;
  onCancel: () => void;
}) {
  const system = command?.isSystem === true;
  const [draft, setDraft] = useState<Draft>(
    command
      ? {
          command: command.command,
          description: command.description,
          handler: command.handler,
          response: command.response ?? '',
          order: String(command.order),
          isActive: command.isActive,
        }
      : { command: '', description: '', handler: 'custom', response: '', order: '0', isActive: true },
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const order = draft.order.trim() === '' ? 0 : Number(draft.order);
    const response = draft.handler === 'custom' ? draft.response : null;
    const input: BotCommandInput = system
      ? { description: draft.description, response, order, isActive: draft.isActive }
      : { command: draft.command, description: draft.description, handler: draft.handler, response, order, isActive: draft.isActive };
    const checked = checkWith(command ? updateBotCommandSchema : createBotCommandSchema, input);
    const found: FieldErrors = checked.ok ? {} : checked.errors;
    if (!found.response) {
      try {
        normalise({ command: draft.command, description: draft.description, handler: draft.handler, response, order, isActive: draft.isActive });
      } catch (failure) {
        if (!(failure instanceof ValidationError)) throw failure;
        found.response = failure.message;
      }
    }
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(input);
  };
  const problem = (name: string) => errors[name] && <span className="field-error">{errors[name]}</span>;

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <div className="form-row">
        <div className="field">
          <label htmlFor="command-name">Command Name</label>
          <div className="input-prefix">
            <span aria-hidden="true">/</span>
            <input
              id="command-name"
              value={draft.command}
              maxLength={32}
              disabled={system}
              placeholder="e.g. opening_hours"
              aria-invalid={errors.command ? true : undefined}
              onChange={(e) => set({ command: cleanCommandName(e.target.value) })}
            />
          </div>
          {system ? <span className="hint">System commands keep their name.</span> : problem('command')}
        </div>
        <div className="field">
          <label htmlFor="command-handler">Handler</label>
          <select id="command-handler" value={draft.handler} disabled={system} onChange={(e) => set({ handler: e.target.value as Draft['handler'] })}>
            {HANDLERS.map((handler) => (
              <option key={handler} value={handler}>
                {HANDLER_LABELS[handler]}
              </option>
            ))}
          </select>
          {problem('handler')}
        </div>
      </div>
      <div className="field">
        <CountedLabel htmlFor="command-description" label="Description" length={draft.description.length} max={DESCRIPTION_MAX} />
        <input
          id="command-description"
          value={draft.description}
          aria-invalid={errors.description ? true : undefined}
          placeholder="What the command does, as Telegram lists it"
          onChange={(e) => set({ description: e.target.value })}
        />
        {problem('description')}
      </div>
      {draft.handler === 'custom' && (
        <div className="field">
          <CountedLabel htmlFor="command-response" label="Custom Response" length={draft.response.length} max={RESPONSE_MAX} />
          <textarea
            id="command-response"
            rows={4}
            value={draft.response}
            aria-invalid={errors.response ? true : undefined}
            placeholder="What the bot answers"
            onChange={(e) => set({ response: e.target.value })}
          />
          {problem('response')}
        </div>
      )}
      <div className="form-row">
        <OrderAndActiveFields
          idPrefix="command"
          order={draft.order}
          isActive={draft.isActive}
          orderError={errors.order}
          onOrder={(order) => set({ order })}
          onActive={(isActive) => set({ isActive })}
        />
      </div>
      <FormActions saving={saving} submitLabel={command ? 'Update Command' : 'Create Command'} onCancel={onCancel} />
    </form>
  );
}
