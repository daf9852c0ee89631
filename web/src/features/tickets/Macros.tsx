import { useState } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { Modal } from '../../components/ui';
import { MESSAGE_MAX } from '#contract/tickets';
import type { Macro } from '#contract/responses';
import { type MacroAction, createMacroSchema } from '#contract/macros';
import { PRIORITIES, type Priority, TICKET_STATUSES, type TicketStatus } from '#contract/tickets';
import { useApplyMacroMutation, useCreateMacroMutation, useMacroPreviewQuery } from './api';

/** The composer's Macros menu (docs/macros.md): the macros the agent may apply, by name; choosing one opens its preview. */
export function MacroMenu({ macros, onChoose, isAdmin }: { macros: Macro[]; onChoose: (macro: Macro) => void; isAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  return (
    <div className="macro-menu">
      <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => setOpen((shown) => !shown)}>
        Macros
      </button>
      {open && (
        <ul className="shortcode-suggestions" aria-label="Macros">
          {macros.length === 0 && <li className="muted">No macros yet</li>}
          <li>
            <button type="button" onClick={() => setCreating(true)}>
              New macro...
            </button>
          </li>
          {macros.map((macro) => (
            <li key={macro._id}>
              <button
                type="button"
                onClick={() => {
                  setOpen(false);
                  onChoose(macro);
                }}
              >
                <strong>#{macro.shortcode}</strong> {macro.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {creating && <MacroForm isAdmin={isAdmin} onClose={() => setCreating(false)} />}
    </div>
  );
}

/** The refusal in words, if any, then Cancel and the dialog's action. */
function DialogFooter(props: {
  failure: string | null;
  onCancel: () => void;
  busy: boolean;
  disabled?: boolean;
  busyLabel: string;
  label: string;
  onConfirm: () => void;
}) {
  return (
    <>
      {props.failure && (
        <p className="field-error" role="alert">
          {props.failure}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" className="button button-primary" disabled={props.busy || props.disabled} onClick={props.onConfirm}>
          {props.busy ? props.busyLabel : props.label}
        </button>
      </div>
    </>
  );
}

/** A select of an action's value, or nothing ("Leave as it is": the macro does not touch it). */
function SetOrLeave({
  id,
  label,
  choices,
  value,
  onChange,
}: {
  id: string;
  label: string;
  choices: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Leave as it is</option>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </>
  );
}

/** A new macro: its reply may use {{customer.name}}, {{customer.firstName}}, {{ticket.number}}, {{ticket.title}}, {{agent.name}}, {{agent.firstName}}. */
function MacroForm({ isAdmin, onClose }: { isAdmin: boolean; onClose: () => void }) {
  const [form, setForm] = useState({ name: '', shortcode: '', reply: '', status: '', priority: '', assignToMe: false, note: '', shared: false });
  const [failure, setFailure] = useState<string | null>(null);
  const [create, { isLoading }] = useCreateMacroMutation();
  const set = (changes: Partial<typeof form>) => setForm((current) => ({ ...current, ...changes }));
  const save = async () => {
    const actions: MacroAction[] = [
      ...(form.status ? [{ type: 'status' as const, status: form.status as TicketStatus }] : []),
      ...(form.priority ? [{ type: 'priority' as const, priority: form.priority as Priority }] : []),
      ...(form.assignToMe ? [{ type: 'assign' as const, agentId: 'me' }] : []),
      ...(form.note.trim() ? [{ type: 'note' as const, text: form.note }] : []),
    ];
    const checked = createMacroSchema.safeParse({ name: form.name, shortcode: form.shortcode, reply: form.reply, actions, shared: form.shared });
    if (!checked.success) return setFailure(checked.error.issues[0]?.message ?? 'Check the form');
    try {
      await create(checked.data).unwrap();
      onClose();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to save the macro'));
    }
  };
  return (
    <Modal title="New macro" onClose={onClose}>
      <div className="form">
        <label htmlFor="macro-name">Name</label>
        <input id="macro-name" value={form.name} onChange={(e) => set({ name: e.target.value })} maxLength={99} />
        <label htmlFor="macro-shortcode">Shortcode</label>
        <input id="macro-shortcode" value={form.shortcode} onChange={(e) => set({ shortcode: e.target.value })} maxLength={50} />
        <label htmlFor="macro-text">Reply text</label>
        <textarea id="macro-text" value={form.reply} rows={4} maxLength={MESSAGE_MAX} onChange={(e) => set({ reply: e.target.value })} />
        <p className="muted small">
          Variables: {'{{customer.name}} {{customer.firstName}} {{ticket.number}} {{ticket.title}} {{agent.name}} {{agent.firstName}}'}
        </p>
        <SetOrLeave id="macro-status" label="Set status" choices={TICKET_STATUSES} value={form.status} onChange={(status) => set({ status })} />
        <SetOrLeave id="macro-priority" label="Set priority" choices={PRIORITIES} value={form.priority} onChange={(priority) => set({ priority })} />
        <label className="checkbox">
          <input type="checkbox" checked={form.assignToMe} onChange={(e) => set({ assignToMe: e.target.checked })} /> Assign to whoever applies it
        </label>
        <label htmlFor="macro-note">Internal note</label>
        <textarea id="macro-note" value={form.note} rows={2} maxLength={MESSAGE_MAX} onChange={(e) => set({ note: e.target.value })} />
        {isAdmin && (
          <label className="checkbox">
            <input type="checkbox" checked={form.shared} onChange={(e) => set({ shared: e.target.checked })} /> Share with everyone
          </label>
        )}
        <DialogFooter failure={failure} onCancel={onClose} busy={isLoading} busyLabel="Saving..." label="Save macro" onConfirm={() => void save()} />
      </div>
    </Modal>
  );
}

/**
 * What the macro will do on this ticket before anything is sent: the reply with its variables filled
 * in (editable) and its actions in words. The server applies all of it or nothing and says which action it refused.
 */
export function MacroPreviewDialog({ ticketId, macro, onClose }: { ticketId: string; macro: Macro; onClose: () => void }) {
  const preview = useMacroPreviewQuery({ ticketId, macroId: macro._id });
  const [edited, setEdited] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [apply, { isLoading }] = useApplyMacroMutation();
  const dispatch = useAppDispatch();
  const reply = edited ?? preview.data?.reply ?? '';
  const confirm = async () => {
    if (!preview.data) return;
    try {
      await apply({ ticketId, macroId: macro._id, reply, version: preview.data.macro.version }).unwrap();
      dispatch(toastShown('success', `Applied macro "${preview.data.macro.name}"`));
      onClose();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to apply the macro'));
    }
  };
  return (
    <Modal title={`Macro: ${macro.name}`} onClose={onClose}>
      <div className="form">
        {preview.isLoading && <p className="muted">Loading preview...</p>}
        {preview.isError && <p className="field-error">{errorMessage(preview.error, 'Failed to load the preview')}</p>}
        {preview.data && (
          <>
            <label htmlFor="macro-reply">Reply</label>
            <textarea id="macro-reply" value={reply} maxLength={MESSAGE_MAX} rows={5} onChange={(e) => setEdited(e.target.value)} />
            <p className="muted small">
              Then, as {preview.data.macro.name} (version {preview.data.macro.version}):
            </p>
            <ul aria-label="Macro actions">
              {preview.data.actions.length === 0 && <li className="muted">No actions: only the reply is sent.</li>}
              {preview.data.actions.map((action, index) => (
                <li key={index}>
                  {action.label}
                  {action.type === 'note' ? `: ${action.text}` : ''}
                </li>
              ))}
            </ul>
          </>
        )}
        <DialogFooter
          failure={failure}
          onCancel={onClose}
          busy={isLoading}
          disabled={!preview.data}
          busyLabel="Applying..."
          label="Apply macro"
          onConfirm={() => void confirm()}
        />
      </div>
    </Modal>
  );
}
