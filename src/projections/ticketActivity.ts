import type { TicketStatus } from '#contract/tickets';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const TICKET_ACTIVITY = 'ticket_activity_v1';

/**
 * One line of a ticket's conversation that no one typed: a status change, an assignment or an
 * unassignment (issue 25). Names are joined at read time from the directory, so a line follows a
 * rename like the messages around it. Notes and the outcome never become lines.
 */
export interface ActivityLine extends Doc {
  ticket: string;
  kind: 'status' | 'assigned' | 'unassigned';
  status: TicketStatus | null;
  agentId: string | null;
  actorId: string | null;
  platform: 'web' | 'telegram';
  at: string;
}

const lines = (store: ReadStore) => store.collection<ActivityLine>(TICKET_ACTIVITY);

/** Keyed by the event's id, so applying an event again writes the same line. */
function record(
  store: ReadStore,
  event: { id: string; metadata: { occurredAt: string; actor?: { userId: string; platform?: string } } },
  line: Pick<ActivityLine, 'ticket' | 'kind' | 'status' | 'agentId'>,
) {
  const actor = event.metadata.actor;
  const view: ActivityLine = {
    _id: event.id,
    ...line,
    actorId: actor?.userId ?? null,
    platform: actor?.platform === 'telegram' ? 'telegram' : 'web',
    at: event.metadata.occurredAt,
  };
  return lines(store).replaceOne({ _id: event.id }, view, { upsert: true });
}

/** Serves the system lines of a ticket's conversation, read by ticket in time order. */
export const ticketActivityProjection: Projection = {
  name: 'ticketActivity',
  version: 1,
  collections: [TICKET_ACTIVITY],
  async setup(store: ReadStore) {
    await lines(store).createIndex({ keys: { ticket: 1, at: 1 } });
  },
  ...handledBy({
    async TicketStatusChanged(event, store) {
      await record(store, event, { ticket: event.data.ticketId, kind: 'status', status: event.data.to, agentId: null });
    },
    async AgentAssignedToTicket(event, store) {
      await record(store, event, { ticket: event.data.ticketId, kind: 'assigned', status: null, agentId: event.data.agentId });
    },
    async AgentUnassignedFromTicket(event, store) {
      await record(store, event, { ticket: event.data.ticketId, kind: 'unassigned', status: null, agentId: event.data.agentId });
    },
    async TicketDeleted(event, store) {
      await lines(store).deleteMany({ ticket: event.data.ticketId });
    },
  }),
};
