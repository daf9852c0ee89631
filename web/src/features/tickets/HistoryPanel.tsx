import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../app/api';
import { Badge, Banner, Card } from '../../components/ui';
import { formatDateTime, fullName } from '../../lib/format';
import { MessageItem } from './Conversation';
import { CHANNEL_WORDS } from '../../entities/satisfaction/SatisfactionPrompt';
import { targetNow } from '../../entities/sla/SlaChip';
import { useTicketAtQuery, useTicketHistoryQuery } from './api';
import { PRIORITY_COLOR, statusLabel, statusVariant } from './display';
import type { HistoryEntry, TicketHistory, TicketMoment } from '../../entities/ticket/types';

const noop = () => undefined;
const nothing = async () => null;

/** Whether the stream's hash chain still holds, as the server recomputed it just now. */
export function IntegrityLine({ history }: { history: TicketHistory }) {
  const { integrity } = history;
  if (integrity.ok) {
    return (
      <p className="history-integrity">
        <Badge variant="success">Verified</Badge> Hash chain intact over {history.events.length} events
        {integrity.head && <code title={integrity.head}> {integrity.head.slice(0, 12)}…</code>}
      </p>
    );
  }
  const found = integrity.firstBreak!;
  return (
    <Banner kind="error">
      Hash chain broken at revision {found.revision} ({found.type}): {found.reason}. Events from there on may have been altered.
    </Banner>
  );
}

function EntryActor({ entry }: { entry: HistoryEntry }) {
  if (!entry.actor) return <strong>System</strong>;
  return (
    <>
      <strong>{entry.actor.name}</strong> <Badge variant="secondary">{entry.actor.role}</Badge>
      {entry.actor.platform === 'telegram' && <Badge variant="default">Telegram</Badge>}
      {entry.actor.token && <Badge variant="default">API token “{entry.actor.token.label}”</Badge>}
    </>
  );
}

/** The events, oldest first; choosing one moves the scrubber there. */
export function Timeline({ events, revision, onSelect }: { events: HistoryEntry[]; revision: number; onSelect: (revision: number) => void }) {
  return (
    <ol className="history-timeline" aria-label="Timeline">
      {events.map((entry) => (
        <li key={entry.eventId} aria-current={entry.revision === revision ? 'step' : undefined} className={entry.revision === revision ? 'selected' : ''}>
          <button type="button" onClick={() => onSelect(entry.revision)} aria-label={`Revision ${entry.revision}: ${entry.summary}`}>
            <span className="history-when">
              <span className="history-revision">#{entry.revision}</span>
              <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
            </span>
            <span className="history-who">
              <EntryActor entry={entry} />
            </span>
            <span className="history-what">{entry.summary}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}

/** The ticket and its conversation exactly as they were at the chosen revision (read-only). */
/** The rating of the latest resolution as it stood at the moment, in words (the comment as text). */
function ratingThen(rating: NonNullable<TicketMoment['satisfaction']>): string {
  const score = rating.score === null ? 'Not rated yet' : `${rating.score} of 5${rating.channel ? ` ${CHANNEL_WORDS[rating.channel]}` : ''}`;
  const comment = rating.comment ? ` – "${rating.comment}"` : '';
  const ended = rating.ended ? ` (resolution ${rating.episode}, since ${rating.ended})` : ` (resolution ${rating.episode})`;
  return `${score}${comment}${ended}`;
}

export function TicketAsOf({ moment }: { moment: TicketMoment }) {
  const { ticket, messages } = moment;
  return (
    <section className="history-moment" aria-label={`Ticket as of revision ${moment.revision}`}>
      <h3>As of {formatDateTime(moment.at)}</h3>
      {moment.deleted && <Banner kind="error">The ticket was deleted at this moment; it is shown as it was just before.</Banner>}
      <dl className="history-facts">
        <dt>Title</dt>
        <dd>{ticket.title}</dd>
        <dt>Status</dt>
        <dd>
          <Badge variant={statusVariant(ticket.status)}>{statusLabel(ticket.status)}</Badge>
        </dd>
        <dt>Priority</dt>
        <dd>
          <span className={`badge priority-badge priority-${PRIORITY_COLOR[ticket.priority]}`}>{ticket.priority}</span>
        </dd>
        <dt>Category</dt>
        <dd>{ticket.category.name}</dd>
        <dt>Assigned to</dt>
        <dd>{ticket.assignedAgent ? fullName(ticket.assignedAgent) : 'Unassigned'}</dd>
        <dt>Team</dt>
        <dd>{ticket.team?.name ?? 'No team'}</dd>
        <dt>Outcome</dt>
        <dd className="preserve">{ticket.outcomeMessage ?? 'None yet'}</dd>
        {moment.sla && (
          <>
            <dt>Service levels</dt>
            <dd>
              {moment.sla.policyName} (version {moment.sla.version}):{' '}
              {moment.sla.targets.map((target) => targetNow(target, Date.parse(moment.at)).text).join(' · ')}
            </dd>
          </>
        )}
        {moment.satisfaction && (
          <>
            <dt>Rating</dt>
            <dd className="preserve">{ratingThen(moment.satisfaction)}</dd>
          </>
        )}
      </dl>
      <h4>Conversation ({messages.length})</h4>
      {messages.length === 0 ? (
        <p className="muted">No messages yet at this moment.</p>
      ) : (
        <ul className="message-list history-messages">
          {messages.map((message) => (
            <MessageItem key={message._id} message={message} myId="" editing={false} onEdit={noop} onSave={nothing} onCancel={noop} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Scrubber and buttons over the revisions 0..latest. */
export function Scrubber({
  revision,
  latest,
  entry,
  onSelect,
}: {
  revision: number;
  latest: number;
  entry: HistoryEntry | undefined;
  onSelect: (revision: number | null) => void;
}) {
  return (
    <div className="history-scrubber">
      <label htmlFor="history-scrubber">Moment in the ticket&apos;s history</label>
      <input
        id="history-scrubber"
        type="range"
        min={0}
        max={latest}
        step={1}
        value={revision}
        aria-valuetext={entry ? `Revision ${revision} of ${latest}: ${entry.summary}` : `Revision ${revision}`}
        onChange={(event) => onSelect(Number(event.target.value) === latest ? null : Number(event.target.value))}
      />
      <div className="history-scrubber-controls">
        <button type="button" className="button button-secondary" disabled={revision === 0} onClick={() => onSelect(revision - 1)}>
          Previous
        </button>
        <span aria-live="polite">
          Revision {revision} of {latest}
          {entry && ` · ${formatDateTime(entry.at)}`}
        </span>
        <button
          type="button"
          className="button button-secondary"
          disabled={revision === latest}
          onClick={() => onSelect(revision + 1 === latest ? null : revision + 1)}
        >
          Next
        </button>
        <button type="button" className="button button-secondary" disabled={revision === latest} onClick={() => onSelect(null)}>
          Latest
        </button>
      </div>
    </div>
  );
}

/**
 * The History panel of the ticket detail (staff): the stream's events as a timeline, whether its
 * hash chain holds, and a scrubber showing the ticket as of any event. `version` changes whenever
 * the ticket does, so an open panel follows live changes.
 */
export function HistoryPanel({ ticketId, version }: { ticketId: string; version: string }) {
  const [open, setOpen] = useState(false);
  const [hideReads, setHideReads] = useState(false);
  /** null follows the latest revision as new events arrive. */
  const [chosen, setChosen] = useState<number | null>(null);
  const history = useTicketHistoryQuery(ticketId, { skip: !open, refetchOnMountOrArgChange: true });
  const { refetch, isUninitialized } = history;
  const seenVersion = useRef(version);
  useEffect(() => {
    if (seenVersion.current === version) return;
    seenVersion.current = version;
    if (open && !isUninitialized) void refetch();
  }, [version, open, isUninitialized, refetch]);
  const events = history.data?.events ?? [];
  const latest = Math.max(events.length - 1, 0);
  const revision = Math.min(chosen ?? latest, latest);
  const moment = useTicketAtQuery({ id: ticketId, revision }, { skip: !open || !history.data });
  const shown = hideReads ? events.filter((entry) => entry.type !== 'MessagesRead') : events;

  return (
    <Card
      title="History"
      className="history-panel"
      actions={
        <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => setOpen((was) => !was)}>
          {open ? 'Hide history' : 'Show history'}
        </button>
      }
    >
      {!open && <p className="muted">Every change to this ticket, who made it and when, and the ticket as it was at any moment.</p>}
      {open && history.isLoading && <p className="muted">Loading history...</p>}
      {open && history.isError && <Banner kind="error">{errorMessage(history.error, 'Failed to load history')}</Banner>}
      {open && history.data && (
        <>
          <IntegrityLine history={history.data} />
          <Scrubber revision={revision} latest={latest} entry={events[revision]} onSelect={setChosen} />
          <label className="checkbox-line">
            <input type="checkbox" checked={hideReads} onChange={(event) => setHideReads(event.target.checked)} /> Hide read receipts
          </label>
          <div className="history-columns">
            <Timeline events={shown} revision={revision} onSelect={(picked) => setChosen(picked === latest ? null : picked)} />
            {moment.data && moment.data.revision === revision ? (
              <TicketAsOf moment={moment.data} />
            ) : moment.isError ? (
              <Banner kind="error">{errorMessage(moment.error, 'Failed to load the ticket at this moment')}</Banner>
            ) : (
              <p className="muted">Loading the ticket as of revision {revision}...</p>
            )}
          </div>
        </>
      )}
    </Card>
  );
}
