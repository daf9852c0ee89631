import { Link } from 'react-router';
import { Card } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { useRatingsAwaitingQuery } from './api';

/**
 * The customer's notice of the survey on their dashboard: each resolved ticket that waits for their
 * rating, linking to the ticket, where the prompt asks (docs/satisfaction.md). Shows nothing when none waits.
 */
export function RatingsAwaiting() {
  const { data } = useRatingsAwaitingQuery(undefined, { refetchOnMountOrArgChange: true });
  if (!data || data.length === 0) return null;
  return (
    <Card title="How did we do?" className="ratings-awaiting">
      <ul className="ratings-awaiting-list">
        {data.map((ticket) => (
          <li key={ticket.ticketId}>
            <Link to={`/tickets/${ticket.ticketId}`}>
              Rate #{ticket.number} {ticket.title}
            </Link>{' '}
            <span className="muted small">resolved {formatDateTime(ticket.resolvedAt)}</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
