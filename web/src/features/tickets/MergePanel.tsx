import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../app/api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectUser } from '../../entities/session/sessionSlice';
import { toastShown } from '../../components/toastsSlice';
import { Banner, Card, Modal } from '../../components/ui';
import type { Message, Ticket } from '../../entities/ticket/types';
import { DIFFERENT_CUSTOMERS_MESSAGE } from '#contract/tickets';
import {
  useCustomerTicketsQuery,
  useMergeTicketMutation,
  useSplitTicketMutation,
  useRelateTicketMutation,
  useTicketQuery,
  useUnmergeTicketMutation,
} from './api';

/** Undoes the merge of `sourceId` (docs/tickets.md, merging), telling how it went. */
function useUnmerge() {
  const dispatch = useAppDispatch();
  const [unmerge, { isLoading }] = useUnmergeTicketMutation();
  const run = async (sourceId: string) => {
    try {
      const { ticket } = await unmerge(sourceId).unwrap();
      dispatch(toastShown('success', `Merge undone: #${ticket.ticketId} stands alone again`));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to undo the merge')));
    }
  };
  return { run, busy: isLoading };
}

/** On a ticket merged into another: where its conversation continues (the redirect), and for staff the undo. */
export function MergedIntoBanner({ ticket, staff }: { ticket: Ticket; staff: boolean }) {
  const unmerge = useUnmerge();
  const into = ticket.mergedInto;
  if (!into) return null;
  return (
    <Banner kind="info">
      <span className="merged-into">
        Merged into {into._id ? <Link to={`/tickets/${into._id}`}>#{into.ticketId}: the conversation continues there</Link> : `#${into.ticketId}`}
        {staff && (
          <button type="button" className="button button-secondary button-small" disabled={unmerge.busy} onClick={() => void unmerge.run(ticket._id)}>
            Undo merge
          </button>
        )}
      </span>
    </Banner>
  );
}

const person = (ticket: Ticket) => `${ticket.customer.firstName} ${ticket.customer.lastName}`;

/**
 * The confirmation that shows both tickets before a merge. With `choose`, the agent picks which of
 * the two continues (the target; the other is merged into it and redirects), as from two rows
 * selected in Live Tickets; else `tickets[0]` is merged into `tickets[1]`. `onMerged` gets the target.
 */
export function MergeConfirm({
  tickets,
  choose = false,
  onMerged,
  onClose,
}: {
  tickets: readonly [Ticket, Ticket];
  choose?: boolean;
  onMerged: (target: Ticket) => void;
  onClose: () => void;
}) {
  const [targetAt, setTargetAt] = useState<0 | 1>(1);
  const [merge, { isLoading }] = useMergeTicketMutation();
  const [failure, setFailure] = useState<string | null>(null);
  const dispatch = useAppDispatch();
  const source = tickets[targetAt === 1 ? 0 : 1];
  const into = tickets[targetAt];
  // Across customers only an admin may merge (the server's DIFFERENT_CUSTOMERS): said before, not after the click.
  const crossCustomer = source.customer._id !== into.customer._id;
  const admin = useAppSelector(selectUser)?.role === 'admin';
  const confirm = async () => {
    try {
      const { ticket } = await merge({ id: source._id, target: into._id }).unwrap();
      dispatch(toastShown('success', `#${source.ticketId} merged into #${ticket.ticketId}`));
      onClose();
      onMerged(ticket);
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to merge'));
    }
  };
  return (
    <>
      {choose && (
        <fieldset className="merge-choice">
          <legend>Which ticket continues?</legend>
          {tickets.map((ticket, at) => (
            <label key={ticket._id} className="checkbox-line">
              <input type="radio" name="merge-target" checked={targetAt === at} onChange={() => setTargetAt(at as 0 | 1)} /> #{ticket.ticketId} {ticket.title}
            </label>
          ))}
        </fieldset>
      )}
      <dl className="info-list merge-pair">
        <div>
          <dt>Merge (closed, redirects)</dt>
          <dd>
            #{source.ticketId} {source.title} ({person(source)})
          </dd>
        </div>
        <div>
          <dt>Into (continues)</dt>
          <dd>
            #{into.ticketId} {into.title} ({person(into)})
          </dd>
        </div>
      </dl>
      {crossCustomer &&
        (admin ? (
          <Banner kind="warning">
            These tickets belong to different customers. The messages of #{source.ticketId} will show to staff only in #{into.ticketId}, and {person(source)}{' '}
            will be told the number but not let into {person(into)}&apos;s ticket.
          </Banner>
        ) : (
          <Banner kind="error">{DIFFERENT_CUSTOMERS_MESSAGE}</Banner>
        ))}
      {failure && <p className="field-error">{failure}</p>}
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button button-primary" disabled={isLoading || (crossCustomer && !admin)} onClick={() => void confirm()}>
          {isLoading ? 'Merging...' : 'Confirm merge'}
        </button>
      </div>
    </>
  );
}

/** The merge of `source` into the ticket numbered `target`, confirmed after both are shown; then the target opens. */
function MergeDialog({ source, target, onClose }: { source: Ticket; target: string; onClose: () => void }) {
  const found = useTicketQuery(target.replace(/^#/, ''));
  const navigate = useNavigate();
  const into = found.data?.ticket;
  return (
    <Modal title="Merge tickets" onClose={onClose}>
      {found.isLoading ? (
        <p className="muted">Looking up #{target}...</p>
      ) : !into ? (
        <>
          <Banner kind="error">No ticket #{target.replace(/^#/, '')} found</Banner>
          <div className="form-actions">
            <button type="button" className="button button-secondary" onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : (
        <MergeConfirm tickets={[source, into]} onClose={onClose} onMerged={(ticket) => void navigate(`/tickets/${ticket._id}`)} />
      )}
    </Modal>
  );
}

/** Staff's details-column card: tickets merged into this one (with undo), related tickets, and a merge or relation by number. */
export function MergeCard({ ticket }: { ticket: Ticket }) {
  const [number, setNumber] = useState('');
  const [merging, setMerging] = useState(false);
  const [relate, { isLoading: relating }] = useRelateTicketMutation();
  const unmerge = useUnmerge();
  const dispatch = useAppDispatch();
  const wanted = number.trim().replace(/^#/, '');
  const others = (useCustomerTicketsQuery(ticket.customer._id).data?.tickets ?? []).filter((other) => other._id !== ticket._id && !other.mergedInto);
  const changeRelation = async (target: string, related: boolean) => {
    try {
      await relate({ id: ticket._id, target, related }).unwrap();
      setNumber('');
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to change the relation')));
    }
  };
  return (
    <Card title="Merge and related tickets">
      {ticket.mergedFrom.length > 0 && (
        <ul className="plain-list" aria-label="Merged from">
          {ticket.mergedFrom.map((source) => (
            <li key={source._id}>
              Merged from <Link to={`/tickets/${source._id}`}>#{source.ticketId}</Link>{' '}
              <button type="button" className="link-button" disabled={unmerge.busy} onClick={() => void unmerge.run(source._id)}>
                Undo merge
              </button>
            </li>
          ))}
        </ul>
      )}
      <ul className="plain-list" aria-label="Related tickets">
        {ticket.related.map((other) => (
          <li key={other._id}>
            Related: <Link to={`/tickets/${other._id}`}>#{other.ticketId}</Link>{' '}
            <button type="button" className="link-button" onClick={() => void changeRelation(other._id, false)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {!ticket.mergedInto && others.length > 0 && (
        <ul className="plain-list" aria-label="Other tickets of this customer">
          {others.map((other) => (
            <li key={other._id}>
              <Link to={`/tickets/${other._id}`}>#{other.ticketId}</Link> {other.title}{' '}
              <button type="button" className="link-button" onClick={() => setNumber(String(other.ticketId))}>
                Pick
              </button>
            </li>
          ))}
        </ul>
      )}
      {!ticket.mergedInto && (
        <div className="form merge-form">
          <label htmlFor="merge-target">Ticket number</label>
          <input id="merge-target" value={number} onChange={(e) => setNumber(e.target.value)} placeholder="#1043" inputMode="numeric" />
          <div className="form-actions">
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={!wanted || relating}
              onClick={() => void changeRelation(wanted, true)}
            >
              Relate
            </button>
            <button type="button" className="button button-primary button-small" disabled={!wanted} onClick={() => setMerging(true)}>
              Merge into...
            </button>
          </div>
        </div>
      )}
      {merging && <MergeDialog source={ticket} target={wanted} onClose={() => setMerging(false)} />}
    </Card>
  );
}

/** "Move to a new ticket": the message, optionally the customer's later ones, under a title the agent types. */
export function MoveDialog({ ticket, message, onClose }: { ticket: Ticket; message: Message; onClose: () => void }) {
  const [title, setTitle] = useState('');
  const [withFollowing, setWithFollowing] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [split, { isLoading }] = useSplitTicketMutation();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const confirm = async () => {
    try {
      const { ticket: created } = await split({ id: ticket._id, messageId: message._id, withFollowing, title }).unwrap();
      dispatch(toastShown('success', `Moved to the new ticket #${created.ticketId}`));
      onClose();
      void navigate(`/tickets/${created._id}`);
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to move the message'));
    }
  };
  return (
    <Modal title="Move to a new ticket" onClose={onClose}>
      <div className="form">
        <p className="muted preserve">{message.content}</p>
        <label htmlFor="split-title">Title of the new ticket</label>
        <input id="split-title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
        <label className="checkbox">
          <input type="checkbox" checked={withFollowing} onChange={(e) => setWithFollowing(e.target.checked)} /> Also move the customer&apos;s later messages
        </label>
        {ticket.status !== 'resolved' && ticket.status !== 'closed' && (
          <p className="muted small">#{ticket.ticketId} will be resolved: the new ticket is the customer&apos;s open one.</p>
        )}
        {failure && <p className="field-error">{failure}</p>}
        <div className="form-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button button-primary" disabled={isLoading || title.trim() === ''} onClick={() => void confirm()}>
            {isLoading ? 'Moving...' : 'Move'}
          </button>
        </div>
      </div>
    </Modal>
  );
}
