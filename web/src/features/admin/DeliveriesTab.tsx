import { useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { Badge, Banner, ConfirmDialog, EmptyState, DataTable } from '../../components/ui';
import { formatDateTime, timeAgo } from '../../lib/format';
import {
  type Delivery,
  type DeliveryList,
  useDeliveriesQuery,
  useDiscardDeliveryMutation,
  useRetryDeliveryMutation,
  useSettleFailedDeliveriesMutation,
} from './api';

/** The list refreshes on its own: retries happen in the background. */
const REFRESH_MS = 5000;

const STATE_BADGE = {
  waiting: ['secondary', 'Pending'],
  active: ['default', 'Sending'],
  retrying: ['warning', 'Retrying'],
  failed: ['destructive', 'Failed'],
} as const;
const CHANNEL_LABEL = { telegram: 'Telegram', email: 'E-mail' } as const;
const DIRECTION_LABEL = { inbound: 'In', outbound: 'Out' } as const;

/** How long a message has waited, in the largest whole unit. */
function waitedFor(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h`;
}

/** What the notice was, in words (the template of a bot message, the kind of a mail). */
const KIND_LABEL: Record<string, string> = {
  reply: 'Bot reply',
  accessApproved: 'Access approved',
  ticketCreatedMessage: 'Ticket created',
  ticketUpdatedMessage: 'Status changed',
  ticketClosedMessage: 'Ticket closed',
  agentAssignedMessage: 'Agent assigned',
  newMessageNotification: 'New reply',
  created: 'Ticket created',
  status: 'Status changed',
  file: 'File of a reply',
  update: 'Customer message',
};
const kindLabel = (kind: string) => KIND_LABEL[kind] ?? kind;

type Action = { kind: 'retry' | 'discard'; delivery: Delivery } | { kind: 'retry-all' | 'discard-all' };

/**
 * One row per message not yet through: notices out and customers' Telegram messages in, with how
 * long each has waited; Retry and Discard for notices (a customer's message is never discarded here).
 */
function DeliveriesTable({ deliveries, busy, onAction }: { deliveries: Delivery[]; busy: boolean; onAction: (action: Action) => void }) {
  if (deliveries.length === 0) return <EmptyState title="Every notice has been delivered" icon="check" />;
  return (
    <DataTable
      columns={['Channel', 'Direction', 'Chat or address', 'Ticket', 'Notice', 'Status', 'Attempts', 'Last error', 'Waiting', 'Last change', 'Actions']}
      label="Deliveries"
    >
      {deliveries.map((delivery) => {
        const [variant, label] = STATE_BADGE[delivery.state];
        const name = `${kindLabel(delivery.kind)} ${delivery.direction === 'inbound' ? 'from' : 'to'} ${delivery.recipientName ?? delivery.recipient}`;
        const outbound = delivery.direction === 'outbound';
        return (
          <tr key={`${delivery.channel}:${delivery.id}`}>
            <td>{CHANNEL_LABEL[delivery.channel]}</td>
            <td>{DIRECTION_LABEL[delivery.direction]}</td>
            <td>
              {delivery.recipientName && <div>{delivery.recipientName}</div>}
              <div className={delivery.recipientName ? 'mono small muted' : 'mono'}>{delivery.recipient}</div>
            </td>
            <td>{delivery.ticket ? <Link to={`/tickets/${delivery.ticket._id}`}>#{delivery.ticket.ticketId}</Link> : <span className="muted">—</span>}</td>
            <td>{kindLabel(delivery.kind)}</td>
            <td>
              <Badge variant={variant}>{label}</Badge>
            </td>
            <td>{delivery.attempts}</td>
            <td className="small">{delivery.lastError ?? <span className="muted">—</span>}</td>
            <td title={`Queued ${formatDateTime(delivery.createdAt)}`}>{waitedFor(delivery.ageSeconds)}</td>
            <td title={`Queued ${formatDateTime(delivery.createdAt)}; last change ${formatDateTime(delivery.updatedAt)}`}>{timeAgo(delivery.updatedAt)}</td>
            <td>
              <div className="row-actions">
                {outbound && (delivery.state === 'failed' || delivery.state === 'retrying') && (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Retry ${name}`}
                    title="Retry now"
                    disabled={busy}
                    onClick={() => onAction({ kind: 'retry', delivery })}
                  >
                    <Icon name="refresh" size={16} />
                  </button>
                )}
                {outbound && delivery.state !== 'active' && (
                  <button
                    type="button"
                    className="icon-button danger"
                    aria-label={`Discard ${name}`}
                    title="Discard"
                    disabled={busy}
                    onClick={() => onAction({ kind: 'discard', delivery })}
                  >
                    <Icon name="trash" size={16} />
                  </button>
                )}
              </div>
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

/** The counts and the actions on every failed notice at once, above the table; a pager below it when the failed notices fill more than a page. */
export function DeliveriesView({
  list,
  busy,
  onAction,
  onPage,
}: {
  list: DeliveryList;
  busy: boolean;
  onAction: (action: Action) => void;
  onPage: (page: number) => void;
}) {
  const { waiting, retrying, failed, inbound } = list.counts;
  const { page, pages } = list.failedPagination;
  return (
    <>
      <div className="toolbar">
        <p className="muted" aria-live="polite">
          {waiting} pending · {retrying} retrying · {failed} failed · {inbound} incoming
        </p>
        <div className="toolbar-actions">
          <button type="button" className="button button-secondary" disabled={busy || failed === 0} onClick={() => onAction({ kind: 'retry-all' })}>
            <Icon name="refresh" size={16} /> Retry all failed
          </button>
          <button type="button" className="button button-danger" disabled={busy || failed === 0} onClick={() => onAction({ kind: 'discard-all' })}>
            <Icon name="trash" size={16} /> Discard all failed
          </button>
        </div>
      </div>
      {failed > 0 && (
        <Banner kind="warning">
          {failed === 1 ? 'One notice could not be delivered and waits for you.' : `${failed} notices could not be delivered and wait for you.`} Retry once the
          cause is fixed, or discard.
        </Banner>
      )}
      <DeliveriesTable deliveries={list.deliveries} busy={busy} onAction={onAction} />
      {pages > 1 && (
        <nav className="pager" aria-label="Failed notices pages">
          <button type="button" className="button button-ghost button-small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
            Newer
          </button>
          <span className="muted">
            Failed notices, page {page} of {pages}
          </span>
          <button type="button" className="button button-ghost button-small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
            Older
          </button>
        </nav>
      )}
    </>
  );
}

const CONFIRM = {
  discard: 'Discard this notice? Its recipient will never get it.',
  'discard-all': 'Discard every failed notice? Their recipients will never get them.',
} as const;

/** The Deliveries tab of the Admin Panel: notices waiting, retrying or failed, and what an admin can do about them. */
export function DeliveriesTab() {
  const dispatch = useAppDispatch();
  const [page, setPage] = useState(1);
  const { data, error, isLoading } = useDeliveriesQuery(page, { pollingInterval: REFRESH_MS });
  // Failed notices retried, discarded or dropped can leave the page past the last: back to the last one.
  const lastPage = Math.max(1, data?.failedPagination.pages ?? 1);
  if (data && page > lastPage) setPage(lastPage);
  const [retryOne, retrying] = useRetryDeliveryMutation();
  const [discardOne, discarding] = useDiscardDeliveryMutation();
  const [settle, settling] = useSettleFailedDeliveriesMutation();
  const [confirming, setConfirming] = useState<Action | null>(null);
  const busy = retrying.isLoading || discarding.isLoading || settling.isLoading;

  const run = async (action: Action) => {
    setConfirming(null);
    try {
      if (action.kind === 'retry') dispatch(toastShown('success', (await retryOne(action.delivery).unwrap()).message));
      else if (action.kind === 'discard') {
        await discardOne(action.delivery).unwrap();
        dispatch(toastShown('success', 'Delivery discarded'));
      } else dispatch(toastShown('success', (await settle(action.kind === 'retry-all' ? 'retry' : 'discard').unwrap()).message));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'The delivery could not be changed')));
    }
  };
  const onAction = (action: Action) => (action.kind === 'discard' || action.kind === 'discard-all' ? setConfirming(action) : void run(action));

  return (
    <div className="admin-tab">
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load deliveries')}</Banner> : null}
      {isLoading ? <p className="muted">Loading deliveries...</p> : data && <DeliveriesView list={data} busy={busy} onAction={onAction} onPage={setPage} />}
      {confirming && (confirming.kind === 'discard' || confirming.kind === 'discard-all') && (
        <ConfirmDialog
          message={CONFIRM[confirming.kind]}
          confirmLabel="Discard"
          busy={busy}
          onConfirm={() => void run(confirming)}
          onCancel={() => setConfirming(null)}
        />
      )}
    </div>
  );
}
