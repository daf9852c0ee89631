import { type FormEvent, useState } from 'react';
import {
  CHANNELS,
  RULE_DURATION_UNITS,
  RULE_EVENTS,
  RULE_EVENT_WORDS,
  type RuleAction,
  type RuleCondition,
  type RuleDurationUnit,
  type RuleInput,
  createRuleSchema,
} from '#contract/rules';
import { PRIORITIES, STATUS_WORDS, TICKET_STATUSES } from '#contract/tickets';
import { Banner, FormActions } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { Rule } from './rulesApi';

/** A choice a condition or action offers: an id and what the admin reads. */
interface Choice {
  id: string;
  name: string;
}

/** The desk's teams, categories, staff and customers the form offers by name. */
export interface RuleChoices {
  teams: Choice[];
  categories: Choice[];
  staff: Choice[];
  customers: Choice[];
}

type ConditionField = RuleCondition['field'];
const FIELD_WORDS: Record<ConditionField, string> = {
  status: 'Status',
  priority: 'Priority',
  team: 'Team',
  assignee: 'Assignee',
  category: 'Category',
  channel: 'Channel',
  customer: 'Customer',
  tags: 'Tags',
  hours: 'Business hours',
};
const OPS: Record<ConditionField, Array<[string, string]>> = {
  ...(Object.fromEntries(
    (['status', 'priority', 'team', 'assignee', 'category', 'channel', 'customer'] as const).map((field) => [
      field,
      [
        ['is', 'is'],
        ['is_not', 'is not'],
      ],
    ]),
  ) as Record<ConditionField, Array<[string, string]>>),
  tags: [
    ['has_any', 'has any of'],
    ['has_none', 'has none of'],
  ],
  hours: [
    ['within', 'now within'],
    ['outside', 'now outside'],
  ],
};

type ActionType = RuleAction['type'];
const ACTION_WORDS: Record<ActionType, string> = {
  status: 'Set status',
  priority: 'Set priority',
  assign: 'Assign to agent',
  team: 'Put with team',
  tag: 'Add tag',
  untag: 'Remove tag',
  note: 'Add internal note',
  notify_team: 'Notify a team',
  notify_agent: 'Notify an agent',
  notify_customer: 'Message the customer',
};

/** A condition or action row as the form holds it: its kind and one value (a text for tags and notices). */
interface ConditionRow {
  field: ConditionField;
  op: string;
  value: string;
}
interface ActionRow {
  type: ActionType;
  value: string;
  text: string;
}

const conditionRow = (condition: RuleCondition): ConditionRow => ({
  field: condition.field,
  op: condition.op,
  value: condition.field === 'hours' ? '' : condition.values.join(', '),
});

function actionRow(action: RuleAction): ActionRow {
  switch (action.type) {
    case 'status':
      return { type: action.type, value: action.status, text: '' };
    case 'priority':
      return { type: action.type, value: action.priority, text: '' };
    case 'assign':
      return { type: action.type, value: action.agentId, text: '' };
    case 'team':
      return { type: action.type, value: action.teamId, text: '' };
    case 'tag':
    case 'untag':
      return { type: action.type, value: action.tag, text: '' };
    case 'note':
    case 'notify_customer':
      return { type: action.type, value: '', text: action.text };
    case 'notify_team':
      return { type: action.type, value: action.teamId, text: action.text };
    case 'notify_agent':
      return { type: action.type, value: action.agentId, text: action.text };
  }
}

const list = (value: string) =>
  value
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean);

const conditionOf = (row: ConditionRow): unknown =>
  row.field === 'hours' ? { field: 'hours', op: row.op } : { field: row.field, op: row.op, values: row.field === 'tags' ? list(row.value) : [row.value] };

function actionOf({ type, value, text }: ActionRow): unknown {
  const key = {
    status: 'status',
    priority: 'priority',
    assign: 'agentId',
    team: 'teamId',
    tag: 'tag',
    untag: 'tag',
    notify_team: 'teamId',
    notify_agent: 'agentId',
  } as const;
  const withText = type === 'note' || type === 'notify_customer' || type === 'notify_team' || type === 'notify_agent';
  return { type, ...(type in key ? { [key[type as keyof typeof key]]: value } : {}), ...(withText ? { text } : {}) };
}

/** The values a condition or action picks from, by what it is about; null for a typed value. */
function optionsFor(kind: string, choices: RuleChoices): Choice[] | null {
  switch (kind) {
    case 'status':
      return TICKET_STATUSES.map((status) => ({ id: status, name: STATUS_WORDS[status] }));
    case 'priority':
      return PRIORITIES.map((priority) => ({ id: priority, name: priority }));
    case 'channel':
      return CHANNELS.map((channel) => ({ id: channel, name: channel === 'web' ? 'Web' : 'Telegram' }));
    case 'team':
    case 'notify_team':
      return choices.teams;
    case 'category':
      return choices.categories;
    case 'customer':
      return choices.customers;
    case 'assignee':
      return [{ id: 'none', name: 'Nobody' }, ...choices.staff];
    case 'assign':
    case 'notify_agent':
      return choices.staff;
    default:
      return null;
  }
}

/** A select over `[value, words]` pairs. */
function Choose({ label, value, words, onChange }: { label: string; value: string; words: Array<[string, string]>; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {words.map(([id, text]) => (
        <option key={id} value={id}>
          {text}
        </option>
      ))}
    </select>
  );
}

function RowButton({ primary = false, onClick, children }: { primary?: boolean; onClick: () => void; children: string }) {
  return (
    <button type="button" className={`button ${primary ? 'button-secondary' : 'button-ghost'} button-small`} onClick={onClick}>
      {children}
    </button>
  );
}

function ValuePicker({
  label,
  kind,
  value,
  choices,
  onChange,
}: {
  label: string;
  kind: string;
  value: string;
  choices: RuleChoices;
  onChange: (value: string) => void;
}) {
  const options = optionsFor(kind, choices);
  if (!options) return <input aria-label={label} value={value} placeholder="refund, vip" onChange={(e) => onChange(e.target.value)} />;
  return (
    <Choose label={label} value={value} words={[['', 'Choose…'], ...options.map((option): [string, string] => [option.id, option.name])]} onChange={onChange} />
  );
}

/**
 * A rule built with forms (docs/automation.md): when (the events), if (every condition), then (the
 * actions in order). Checked with the API's own schema before it is sent.
 */
export function RuleForm({
  rule,
  choices,
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  rule: Rule | null;
  choices: RuleChoices;
  saving: boolean;
  error: string | null;
  onSubmit: (input: RuleInput) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(rule?.name ?? '');
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const [kind, setKind] = useState<'event' | 'time'>(rule?.trigger.kind ?? 'event');
  const [events, setEvents] = useState<string[]>(rule?.trigger.kind === 'event' ? rule.trigger.events : ['ticket_created']);
  const [amount, setAmount] = useState(rule?.trigger.kind === 'time' ? String(rule.trigger.after.amount) : '4');
  const [unit, setUnit] = useState<RuleDurationUnit>(rule?.trigger.kind === 'time' ? rule.trigger.after.unit : 'days');
  const [conditions, setConditions] = useState<ConditionRow[]>(rule?.conditions.map(conditionRow) ?? []);
  const [actions, setActions] = useState<ActionRow[]>(rule?.actions.map(actionRow) ?? [{ type: 'team', value: '', text: '' }]);
  const [errors, setErrors] = useState<FieldErrors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkWith(createRuleSchema, {
      name,
      enabled,
      trigger: kind === 'event' ? { kind, events } : { kind, after: { amount: amount.trim() === '' ? NaN : Number(amount), unit } },
      conditions: conditions.map(conditionOf),
      actions: actions.map(actionOf),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(checked.data);
  };
  const setCondition = (index: number, change: Partial<ConditionRow>) =>
    setConditions((rows) => rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const setAction = (index: number, change: Partial<ActionRow>) => setActions((rows) => rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const problems = Object.entries(errors).filter(([path]) => path !== 'name');

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      {problems.length > 0 && <Banner kind="error">{problems.map(([path, message]) => `${path}: ${message}`).join('; ')}</Banner>}
      <div className="field">
        <label htmlFor="rule-name">Rule Name</label>
        <input
          id="rule-name"
          value={name}
          maxLength={99}
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        {errors.name && <span className="field-error">{errors.name}</span>}
      </div>
      <label className="toggle">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Active
      </label>
      <fieldset className="field">
        <legend>When</legend>
        <label className="toggle">
          <input type="radio" name="rule-kind" checked={kind === 'event'} onChange={() => setKind('event')} /> One of these events happens
        </label>
        {kind === 'event' &&
          RULE_EVENTS.map((event) => (
            <label key={event} className="toggle">
              <input
                type="checkbox"
                checked={events.includes(event)}
                onChange={(e) => setEvents((current) => (e.target.checked ? [...current, event] : current.filter((one) => one !== event)))}
              />
              {RULE_EVENT_WORDS[event]}
            </label>
          ))}
        <label className="toggle">
          <input type="radio" name="rule-kind" checked={kind === 'time'} onChange={() => setKind('time')} /> A ticket has matched the conditions for…
        </label>
        {kind === 'time' && (
          <div className="toolbar">
            <input aria-label="Wait" type="number" min={1} step={1} value={amount} onChange={(e) => setAmount(e.target.value)} />
            <Choose
              label="Wait unit"
              value={unit}
              words={RULE_DURATION_UNITS.map((one): [string, string] => [one, one])}
              onChange={(one) => setUnit(one as RuleDurationUnit)}
            />
            <span className="muted small">counted from the change that made it match; a change that ends the match ends the wait</span>
          </div>
        )}
      </fieldset>
      <fieldset className="field">
        <legend>If all of these hold</legend>
        {conditions.length === 0 && <p className="muted small">No conditions: the rule runs on every ticket its events happen to.</p>}
        {conditions.map((row, index) => (
          <div key={index} className="toolbar">
            <Choose
              label={`Condition ${index + 1} field`}
              value={row.field}
              words={Object.entries(FIELD_WORDS)}
              onChange={(field) => setCondition(index, { field: field as ConditionField, op: OPS[field as ConditionField][0]![0], value: '' })}
            />
            <Choose label={`Condition ${index + 1} test`} value={row.op} words={OPS[row.field]} onChange={(op) => setCondition(index, { op })} />
            {row.field !== 'hours' && (
              <ValuePicker
                label={`Condition ${index + 1} value`}
                kind={row.field}
                value={row.value}
                choices={choices}
                onChange={(value) => setCondition(index, { value })}
              />
            )}
            <RowButton onClick={() => setConditions((rows) => rows.filter((_, i) => i !== index))}>Remove</RowButton>
          </div>
        ))}
        <RowButton primary onClick={() => setConditions((rows) => [...rows, { field: 'priority', op: 'is', value: '' }])}>
          Add condition
        </RowButton>
      </fieldset>
      <fieldset className="field">
        <legend>Then</legend>
        {actions.map((row, index) => (
          <div key={index} className="toolbar">
            <Choose
              label={`Action ${index + 1}`}
              value={row.type}
              words={Object.entries(ACTION_WORDS)}
              onChange={(type) => setAction(index, { type: type as ActionType, value: '', text: '' })}
            />
            {row.type !== 'note' && row.type !== 'notify_customer' && (
              <ValuePicker
                label={`Action ${index + 1} value`}
                kind={row.type}
                value={row.value}
                choices={choices}
                onChange={(value) => setAction(index, { value })}
              />
            )}
            {(row.type === 'note' || row.type.startsWith('notify')) && (
              <textarea
                aria-label={`Action ${index + 1} text`}
                rows={2}
                value={row.text}
                placeholder="{{customer.name}}, {{ticket.number}}, {{ticket.title}}"
                onChange={(e) => setAction(index, { text: e.target.value })}
              />
            )}
            <RowButton onClick={() => setActions((rows) => rows.filter((_, i) => i !== index))}>Remove</RowButton>
          </div>
        ))}
        <RowButton primary onClick={() => setActions((rows) => [...rows, { type: 'tag', value: '', text: '' }])}>
          Add action
        </RowButton>
      </fieldset>
      <FormActions saving={saving} submitLabel={rule ? 'Update Rule' : 'Create Rule'} onCancel={onCancel} />
    </form>
  );
}
