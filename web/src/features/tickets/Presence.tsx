import type { Viewer } from '#contract/live';
import { usePresenceQuery } from './api';

/** The other staff on a ticket now (never oneself); nothing for customers, who never learn of it. */
export function useOthersOn(ticketId: string | undefined, myId: string, staff: boolean): Viewer[] {
  const { data } = usePresenceQuery(undefined, { skip: !staff });
  if (!ticketId || !data) return [];
  return (data[ticketId] ?? []).filter((viewer) => viewer.userId !== myId);
}

const nameOf = (viewer: Viewer) => `${viewer.firstName} ${viewer.lastName}`.trim();

/**
 * Collision detection on the ticket page: who else of the staff has it open, and who of them is
 * writing a reply right now, so two agents do not answer the same customer.
 */
export function PresenceLine({ viewers }: { viewers: Viewer[] }) {
  if (viewers.length === 0) return null;
  const replying = viewers.filter((viewer) => viewer.replying);
  return (
    <div className={`banner ${replying.length > 0 ? 'banner-warning' : 'banner-info'} presence-line`} role="status" aria-label="Other staff on this ticket">
      Also viewing: {viewers.map(nameOf).join(', ')}
      {replying.length > 0 && ` — ${replying.map(nameOf).join(', ')} ${replying.length === 1 ? 'is' : 'are'} replying now`}
    </div>
  );
}

/** The marker on a Live Tickets card: who is replying if anyone is, else who is viewing; all on hover. */
export function PresenceMarker({ viewers }: { viewers: Viewer[] }) {
  if (viewers.length === 0) return null;
  const replying = viewers.filter((viewer) => viewer.replying);
  const shown = replying.length > 0 ? replying : viewers;
  const title = [replying.length > 0 && `Replying now: ${replying.map(nameOf).join(', ')}`, `Viewing now: ${viewers.map(nameOf).join(', ')}`]
    .filter(Boolean)
    .join('; ');
  return (
    <span className={`badge ${replying.length > 0 ? 'badge-warning' : 'badge-secondary'} presence-marker`} title={title}>
      {replying.length > 0 ? 'Replying' : 'Viewing'}: {shown.map((viewer) => viewer.firstName).join(', ')}
    </span>
  );
}
