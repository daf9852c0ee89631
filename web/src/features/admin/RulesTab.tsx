import { type ChangeEvent, useState } from 'react';
import { RULE_EVENT_WORDS, type RuleInput, ruleDurationWords } from '#contract/rules';
import type { RuleDryRun } from '#contract/responses';
import { WHOLE_LIST, errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { toastShown } from '../../components/toastsSlice';
import { Badge, Banner, EmptyState, Modal } from '../../components/ui';
import { useTeamsQuery } from '../../entities/team/api';
import { useAllCategoriesQuery, useUsersQuery } from './api';
import { RuleForm, type RuleChoices } from './RuleForm';
import {
  type Rule,
  useCreateRuleMutation,
  useDeleteRuleMutation,
  useImportRulesMutation,
  useLazyExportRulesQuery,
  useReorderRulesMutation,
  useRuleDryRunQuery,
  useRuleFiringsQuery,
  useRulesQuery,
  useUpdateRuleMutation,
} from './rulesApi';

/** A ticket of a dry run; a time rule's says whether its time has passed or until when it waits. */
const dryRunLine = (ticket: RuleDryRun['tickets'][number]) =>
  `#${ticket.ticketId} ${ticket.title}${ticket.wait ? (ticket.wait.state === 'due' ? ' (due now)' : ` (waiting until ${new Date(ticket.wait.dueAt).toLocaleString()})`) : ''}`;

/** How often a rule fired and on which tickets, and the open tickets it would touch now (a dry run). */
function RuleDetails({ rule, onClose }: { rule: Rule; onClose: () => void }) {
  const firings = useRuleFiringsQuery(rule._id);
  const dry = useRuleDryRunQuery(rule._id);
  return (
    <Modal title={`Rule "${rule.name}" (v${rule.version})`} onClose={onClose} wide>
      <h4>{rule.trigger.kind === 'time' ? 'Tickets waiting for it now' : 'Would touch these open tickets now'}</h4>
      {dry.error ? <Banner kind="error">{errorMessage(dry.error, 'The dry run failed')}</Banner> : null}
      {dry.data && (
        <p className="muted small" aria-label="Dry run">
          {dry.data.tickets.length === 0
            ? `None of the ${dry.data.checked} open tickets meets its conditions.`
            : `${dry.data.tickets.length} of ${dry.data.checked} ${rule.trigger.kind === 'time' ? 'waiting' : 'open'} tickets: ${dry.data.tickets.map(dryRunLine).join(', ')}`}
        </p>
      )}
      <h4>Fired {firings.data ? `${firings.data.fired} ${firings.data.fired === 1 ? 'time' : 'times'}` : '…'}</h4>
      <ul className="field-list small" aria-label="Firings">
        {firings.data?.firings.map((firing) => (
          <li key={firing.eventId}>
            <a href={`/tickets/${firing.ticketId}`}>#{firing.number}</a> at {new Date(firing.at).toLocaleString()} (v{firing.version}):{' '}
            {firing.matched.join(', ')}
          </li>
        ))}
      </ul>
    </Modal>
  );
}

/** One rule as a card: its place, name, state, events and actions, with its controls. */
function RuleCard(props: {
  rule: Rule;
  first: boolean;
  last: boolean;
  onMove: (by: -1 | 1) => void;
  onToggle: () => void;
  onEdit: () => void;
  onDelete: () => void;
  onDetails: () => void;
}) {
  const { rule } = props;
  return (
    <article className="admin-card" aria-label={rule.name}>
      <header className="admin-card-head">
        <h3>
          {rule.order}. {rule.name}
        </h3>
        <Badge variant={rule.enabled ? 'default' : 'outline'}>{rule.enabled ? 'On' : 'Off'}</Badge>
      </header>
      <p className="small">
        When{' '}
        {rule.trigger.kind === 'event'
          ? rule.trigger.events.map((kind) => RULE_EVENT_WORDS[kind]).join(' or ')
          : `a ticket has matched for ${ruleDurationWords(rule.trigger.after)}`}
      </p>
      <p className="muted small">
        {rule.conditions.length} {rule.conditions.length === 1 ? 'condition' : 'conditions'}, {rule.actions.length}{' '}
        {rule.actions.length === 1 ? 'action' : 'actions'} · v{rule.version} · fired {rule.fired} {rule.fired === 1 ? 'time' : 'times'}
      </p>
      <footer className="admin-card-actions">
        <button
          type="button"
          className="button button-ghost button-small"
          aria-label={`Move ${rule.name} up`}
          disabled={props.first}
          onClick={() => props.onMove(-1)}
        >
          Up
        </button>
        <button
          type="button"
          className="button button-ghost button-small"
          aria-label={`Move ${rule.name} down`}
          disabled={props.last}
          onClick={() => props.onMove(1)}
        >
          Down
        </button>
        <button type="button" className="button button-ghost button-small" onClick={props.onToggle}>
          {rule.enabled ? 'Switch off' : 'Switch on'}
        </button>
        <button type="button" className="button button-ghost button-small" aria-label={`Details of ${rule.name}`} onClick={props.onDetails}>
          Fired, dry run
        </button>
        <button type="button" className="button button-ghost button-small" aria-label={`Edit rule ${rule.name}`} onClick={props.onEdit}>
          <Icon name="edit" size={14} /> Edit
        </button>
        <button type="button" className="button button-ghost button-small danger" aria-label={`Delete rule ${rule.name}`} onClick={props.onDelete}>
          <Icon name="trash" size={14} /> Delete
        </button>
      </footer>
    </article>
  );
}

/** The Admin Panel's Rules tab (docs/automation.md): triggers built with forms, run in order on ticket events, each change signed by its rule. */
export function RulesTab() {
  const dispatch = useAppDispatch();
  const notify = (kind: 'success' | 'error', text: string) => dispatch(toastShown(kind, text));
  const { data, error, isLoading } = useRulesQuery();
  const teams = useTeamsQuery();
  const categories = useAllCategoriesQuery();
  const users = useUsersQuery({ page: 1, limit: WHOLE_LIST.limit });
  const people = users.data?.users.filter((user) => user.isActive) ?? [];
  const named = (user: { _id: string; firstName: string; lastName: string }) => ({ id: user._id, name: `${user.firstName} ${user.lastName}`.trim() });
  const choices: RuleChoices = {
    teams: (teams.data?.teams ?? []).map((team) => ({ id: team._id, name: team.name })),
    categories: (categories.data?.categories ?? []).map((category) => ({ id: category._id, name: category.name })),
    staff: people.filter((user) => user.role !== 'customer').map(named),
    customers: people.filter((user) => user.role === 'customer').map(named),
  };
  const [createRule, creating] = useCreateRuleMutation();
  const [updateRule, updating] = useUpdateRuleMutation();
  const [deleteRule, deleting] = useDeleteRuleMutation();
  const [reorder] = useReorderRulesMutation();
  const [importRules] = useImportRulesMutation();
  const [exportRules] = useLazyExportRulesQuery();
  const [details, setDetails] = useState<Rule | null>(null);
  const editor = useListEditor<Rule, RuleInput>({
    create: (input) => createRule(input).unwrap(),
    update: (rule, input) => updateRule({ id: rule._id, changes: input }).unwrap(),
    remove: (rule) => deleteRule(rule._id).unwrap(),
    notify,
    texts: {
      created: 'Rule created successfully',
      updated: 'Rule updated successfully',
      deleted: 'Rule deleted successfully',
      saveFailed: 'Failed to save the rule',
      deleteFailed: 'Failed to delete the rule',
    },
  });
  const rules = data?.rules ?? [];
  const run = async (work: Promise<unknown>, failed: string) => {
    try {
      await work;
    } catch (failure) {
      notify('error', errorMessage(failure, failed));
    }
  };
  const move = (index: number, by: -1 | 1) => {
    const ids = rules.map((rule) => rule._id);
    [ids[index], ids[index + by]] = [ids[index + by]!, ids[index]!];
    void run(reorder(ids).unwrap(), 'Failed to reorder the rules');
  };
  const download = async () => {
    const answer = await exportRules().unwrap();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([JSON.stringify(answer, null, 2)], { type: 'application/json' }));
    link.download = 'rules.json';
    link.click();
    URL.revokeObjectURL(link.href);
  };
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await file.text());
    } catch {
      return notify('error', 'The file is not JSON');
    }
    await run(
      importRules(parsed)
        .unwrap()
        .then((answer) => notify('success', `Imported ${answer.rules.length} ${answer.rules.length === 1 ? 'rule' : 'rules'}`)),
      'Failed to import the rules',
    );
  };

  return (
    <div className="admin-tab">
      <div className="toolbar">
        <p className="muted">
          Rules run in order on each ticket event they listen to; every change they make names the rule and its version in the ticket's history.
        </p>
        <button type="button" className="button button-secondary" onClick={() => void run(download(), 'Failed to export the rules')}>
          Export JSON
        </button>
        <label className="button button-secondary">
          Import JSON
          <input type="file" accept="application/json,.json" hidden onChange={(event) => void upload(event)} />
        </label>
        <button type="button" className="button button-primary" onClick={() => editor.setEditing('new')}>
          <Icon name="plus" size={16} /> Add Rule
        </button>
      </div>
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load admin data')}</Banner> : null}
      {isLoading && <p className="muted">Loading rules...</p>}
      {data && rules.length === 0 && (
        <EmptyState title="No rules yet" icon="tag">
          Add one to route, tag or answer tickets as they arrive.
        </EmptyState>
      )}
      <div className="admin-grid">
        {rules.map((rule, index) => (
          <RuleCard
            key={rule._id}
            rule={rule}
            first={index === 0}
            last={index === rules.length - 1}
            onMove={(by) => move(index, by)}
            onToggle={() => void run(updateRule({ id: rule._id, changes: { enabled: !rule.enabled } }).unwrap(), 'Failed to switch the rule')}
            onEdit={() => editor.setEditing(rule)}
            onDelete={() => editor.setDeleting(rule)}
            onDetails={() => setDetails(rule)}
          />
        ))}
      </div>
      {details && <RuleDetails rule={details} onClose={() => setDetails(null)} />}
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add New Rule', edit: 'Edit Rule' }}
        confirmMessage="Are you sure you want to delete this rule? What it did stays in the tickets' histories."
        saving={creating.isLoading || updating.isLoading}
        removing={deleting.isLoading}
        wide
        form={({ record, ...dialog }) => <RuleForm rule={record} choices={choices} {...dialog} />}
      />
    </div>
  );
}
