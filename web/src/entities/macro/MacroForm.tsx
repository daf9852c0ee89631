import { useState } from 'react';
import { MESSAGE_MAX, PRIORITIES, type Priority, TICKET_STATUSES, type TicketStatus } from '#contract/tickets';
import type { Macro } from '#contract/responses';
import { type MacroAction, type MacroInput, createMacroSchema } from '#contract/macros';

/** The refusal in words, if any, then Cancel and the dialog's action. */
export function DialogFooter(props: {
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

/** The team select's value: '' leaves the team as it is, NO_TEAM takes the ticket out of its team. */
const NO_TEAM = '-';
const teamChoiceOf = (action: Extract<MacroAction, { type: 'team' }> | undefined) => (action === undefined ? '' : (action.teamId ?? NO_TEAM));
const tagsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((tag) => tag.trim().toLowerCase())
    .filter(Boolean);

/** The team and tags actions the form's fields make (docs/macros.md). */
function teamAndTags(form: { team: string; addTags: string; removeTags: string }): MacroAction[] {
  const add = tagsOf(form.addTags);
  const remove = tagsOf(form.removeTags);
  return [
    ...(form.team ? [{ type: 'team' as const, teamId: form.team === NO_TEAM ? null : form.team }] : []),
    ...(add.length + remove.length > 0 ? [{ type: 'tags' as const, add, remove }] : []),
  ];
}

/**
 * The form's fields from a macro. Actions the form has no field for (an assignment to a named agent, a
 * second note: made through the API) are kept as they are, after the ones it shows, so an edit here
 * never drops them.
 */
function fieldsOf(macro: Macro | null) {
  const actions = macro?.actions ?? [];
  const firstNote = actions.find((action) => action.type === 'note');
  const tagsAction = actions.find((action) => action.type === 'tags');
  return {
    form: {
      name: macro?.name ?? '',
      shortcode: macro?.shortcode ?? '',
      reply: macro?.reply ?? '',
      status: actions.find((action) => action.type === 'status')?.status ?? '',
      priority: actions.find((action) => action.type === 'priority')?.priority ?? '',
      assignToMe: actions.some((action) => action.type === 'assign' && action.agentId === 'me'),
      note: firstNote?.text ?? '',
      team: teamChoiceOf(actions.find((action) => action.type === 'team')),
      addTags: tagsAction?.add.join(', ') ?? '',
      removeTags: tagsAction?.remove.join(', ') ?? '',
      shared: macro?.shared ?? false,
    },
    kept: actions.filter((action) => (action.type === 'assign' && action.agentId !== 'me') || (action.type === 'note' && action !== firstNote)),
  };
}

/**
 * A macro's form, new or prefilled from `record` (docs/macros.md): its reply may use {{customer.name}},
 * {{customer.firstName}}, {{ticket.number}}, {{ticket.title}}, {{agent.name}}, {{agent.firstName}}.
 * Checked with the server's schema before it is sent; the server's refusal shows in `error`.
 */
export function MacroForm({
  record,
  isAdmin,
  saving,
  error,
  onSubmit,
  onCancel,
  teams = [],
}: {
  record: Macro | null;
  isAdmin: boolean;
  /** The active teams, for "Put with team". */
  teams?: Array<{ _id: string; name: string }>;
  saving: boolean;
  error: string | null;
  onSubmit: (input: MacroInput) => void;
  onCancel: () => void;
}) {
  const [{ form, kept }, setFields] = useState(() => fieldsOf(record));
  const [invalid, setInvalid] = useState<string | null>(null);
  const set = (changes: Partial<typeof form>) => setFields((current) => ({ ...current, form: { ...current.form, ...changes } }));
  const save = () => {
    const actions: MacroAction[] = [
      ...(form.status ? [{ type: 'status' as const, status: form.status as TicketStatus }] : []),
      ...(form.priority ? [{ type: 'priority' as const, priority: form.priority as Priority }] : []),
      ...(form.assignToMe ? [{ type: 'assign' as const, agentId: 'me' }] : []),
      ...(form.note.trim() ? [{ type: 'note' as const, text: form.note }] : []),
      ...teamAndTags(form),
      ...kept,
    ];
    const checked = createMacroSchema.safeParse({ name: form.name, shortcode: form.shortcode, reply: form.reply, actions, shared: form.shared });
    if (!checked.success) return setInvalid(checked.error.issues[0]?.message ?? 'Check the form');
    setInvalid(null);
    onSubmit(checked.data);
  };
  return (
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
      <label htmlFor="macro-team">Put with team</label>
      <select id="macro-team" value={form.team} onChange={(e) => set({ team: e.target.value })}>
        <option value="">Leave as it is</option>
        <option value={NO_TEAM}>No team</option>
        {teams.map((team) => (
          <option key={team._id} value={team._id}>
            {team.name}
          </option>
        ))}
      </select>
      <label htmlFor="macro-add-tags">Add tags</label>
      <input id="macro-add-tags" value={form.addTags} placeholder="refund, vip" onChange={(e) => set({ addTags: e.target.value })} />
      <label htmlFor="macro-remove-tags">Remove tags</label>
      <input id="macro-remove-tags" value={form.removeTags} onChange={(e) => set({ removeTags: e.target.value })} />
      <label htmlFor="macro-note">Internal note</label>
      <textarea id="macro-note" value={form.note} rows={2} maxLength={MESSAGE_MAX} onChange={(e) => set({ note: e.target.value })} />
      {kept.length > 0 && (
        <p className="muted small">Also kept: {kept.length === 1 ? 'one more action' : `${kept.length} more actions`} set through the API.</p>
      )}
      {isAdmin && (
        <label className="checkbox">
          <input type="checkbox" checked={form.shared} onChange={(e) => set({ shared: e.target.checked })} /> Share with everyone
        </label>
      )}
      <DialogFooter failure={invalid ?? error} onCancel={onCancel} busy={saving} busyLabel="Saving..." label="Save macro" onConfirm={save} />
    </div>
  );
}
