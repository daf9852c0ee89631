import { useState } from 'react';
import { errorMessage } from '../../app/api';
import { Banner } from '../../components/ui';
import type { BulkAction } from '#contract/bulk';
import type { BulkChange } from '#contract/responses';
import { PRIORITIES, type Priority, TICKET_STATUSES, type TicketStatus, tagSchema } from '#contract/tickets';
import { useTeamsQuery } from '../../entities/team/api';
import { statusLabel } from './display';
import { useBulkChangeMutation } from './api';
import { useMacrosQuery } from '../../entities/macro/api';

/** The actions of a bulk change (docs/bulk.md), as the bar offers them. */
const ACTIONS = [
  { key: 'me', label: 'Assign to me' },
  { key: 'unassign', label: 'Unassign' },
  { key: 'status', label: 'Set status' },
  { key: 'close', label: 'Close' },
  { key: 'priority', label: 'Set priority' },
  { key: 'team', label: 'Move to team' },
  { key: 'tag', label: 'Add tag' },
  { key: 'untag', label: 'Remove tag' },
  { key: 'macro', label: 'Apply macro' },
] as const;
type ActionKey = (typeof ACTIONS)[number]['key'];

/** Which tickets the change takes: the ticked ones, or all matching the view's filters (its query string). */
export type BulkTarget = { tickets: string[] } | { filter: Record<string, string>; total: number };

const NEEDS_CHOICE: Partial<Record<ActionKey, string>> = {
  status: 'Choose a status',
  priority: 'Choose a priority',
  team: 'Choose a team',
  macro: 'Choose a macro',
};

/** The action to send, or why it cannot be sent yet. */
function actionOf(key: ActionKey, choice: string): BulkAction | string {
  if (NEEDS_CHOICE[key] && choice === '') return NEEDS_CHOICE[key];
  switch (key) {
    case 'me':
      return { type: 'assign', agentId: 'me' };
    case 'unassign':
      return { type: 'unassign' };
    case 'close':
      return { type: 'status', status: 'closed' };
    case 'status':
      return { type: 'status', status: choice as TicketStatus };
    case 'priority':
      return { type: 'priority', priority: choice as Priority };
    case 'team':
      return { type: 'team', teamId: choice === 'none' ? null : choice };
    case 'macro':
      return { type: 'macro', macroId: choice };
    case 'tag':
    case 'untag': {
      const tag = tagSchema.safeParse(choice);
      if (!tag.success) return tag.error.issues[0]!.message;
      return { type: 'tags', add: key === 'tag' ? [tag.data] : [], remove: key === 'untag' ? [tag.data] : [] };
    }
  }
}

/** "48 changed, 1 already so, 2 failed", and each failed ticket with the reason its own route gave. */
export function BulkResult({ bulk, onClose }: { bulk: BulkChange; onClose: () => void }) {
  const failed = bulk.tickets.filter((ticket) => ticket.outcome === 'failed');
  const parts = [
    `${bulk.applied} changed`,
    ...(bulk.unchanged > 0 ? [`${bulk.unchanged} already so`] : []),
    ...(bulk.failed > 0 ? [`${bulk.failed} failed`] : []),
  ];
  return (
    <div className="bulk-result">
      <Banner kind={bulk.failed > 0 ? 'warning' : 'success'}>
        <strong>
          {bulk.total} {bulk.total === 1 ? 'ticket' : 'tickets'}: {parts.join(', ')}
        </strong>
        {failed.length > 0 && (
          <ul className="bulk-failures">
            {failed.map((ticket) => (
              <li key={ticket._id}>
                {ticket.ticketId === null ? 'A ticket that does not exist' : `#${ticket.ticketId}`}: {ticket.error}
              </li>
            ))}
          </ul>
        )}
        <button type="button" className="button button-ghost button-small" onClick={onClose}>
          Dismiss
        </button>
      </Banner>
    </div>
  );
}

/** The bar over the Live Tickets table while tickets are ticked: one action, applied to each (docs/bulk.md). */
export function BulkBar({ target, count, onDone }: { target: BulkTarget; count: number; onDone: (bulk: BulkChange) => void }) {
  const [key, setKey] = useState<ActionKey>('me');
  const [choice, setChoice] = useState('');
  const [change, { isLoading, error }] = useBulkChangeMutation();
  const teams = useTeamsQuery(undefined, { skip: key !== 'team' }).data?.teams ?? [];
  const macros = useMacrosQuery(undefined, { skip: key !== 'macro' }).data?.macros ?? [];
  const action = actionOf(key, choice);
  const apply = async () => {
    if (typeof action === 'string') return;
    const body = 'filter' in target ? { filter: target.filter, action } : { tickets: target.tickets, action };
    const answer = await change(body);
    if ('data' in answer && answer.data) onDone(answer.data.bulk);
  };
  const options: Partial<Record<ActionKey, Array<[string, string]>>> = {
    status: TICKET_STATUSES.map((status) => [status, statusLabel(status)]),
    priority: PRIORITIES.map((priority) => [priority, priority]),
    team: [['none', 'No team'], ...teams.map((team): [string, string] => [team._id, team.name])],
    macro: macros.map((macro): [string, string] => [macro._id, macro.name]),
  };
  const choices = options[key];
  return (
    <form
      className="bulk-bar"
      aria-label="Change the selected tickets"
      onSubmit={(event) => {
        event.preventDefault();
        void apply();
      }}
    >
      <label className="sort-control">
        <span>Action</span>
        <select
          aria-label="Bulk action"
          value={key}
          onChange={(event) => {
            setKey(event.target.value as ActionKey);
            setChoice('');
          }}
        >
          {ACTIONS.map((option) => (
            <option key={option.key} value={option.key}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {choices && (
        <select aria-label={NEEDS_CHOICE[key]} value={choice} onChange={(event) => setChoice(event.target.value)}>
          <option value="">{NEEDS_CHOICE[key]}…</option>
          {choices.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      )}
      {(key === 'tag' || key === 'untag') && (
        <input type="text" aria-label="Tag" placeholder="tag" maxLength={30} value={choice} onChange={(event) => setChoice(event.target.value)} />
      )}
      <button
        type="submit"
        className="button button-primary button-small"
        disabled={isLoading || typeof action === 'string'}
        title={typeof action === 'string' ? action : undefined}
      >
        {isLoading ? 'Applying...' : `Apply to ${count} ${count === 1 ? 'ticket' : 'tickets'}`}
      </button>
      {error && <span className="field-error">{errorMessage(error, 'The bulk change failed')}</span>}
    </form>
  );
}
