import type { StatusChangeReason, TicketStatus } from '#contract/tickets';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { dispatcher } from './events';
import type { Projection } from './runner';

export const TICKET_ACTIVITY = 'ticket_activity_v2';

/** What a line says: the new status (and why, when nobody chose it), or the agent assigned or unassigned. */
type What = { kind: 'status'; value: TicketStatus; reason?: StatusChangeReason } | { kind: 'assigned' | 'unassigned' | 'moved'; value: string };

/**
 * One line of a ticket's conversation that no one typed: a status change (`value` is the new
 * status), an assignment or an unassignment (`value` is the agent's id). Names are joined at read
 * time from the directory, so a line follows a rename like the messages around it. Notes and the
 * outcome never become lines.
 */
type ActivityLine = {
  revision: number;
  at: string;
  actor: string | null;
  platform: 'web' | 'telegram' | 'email';
} & What;

/**
 * A ticket's lines in one document (its `_id` is the ticket's): about three lines per ticket, so one
 * document per line cost the embedded store a document, an id and index entries each (about 165 MB
 * at 100,000 tickets); kept together they are small objects sharing their agents' ids.
 */
export interface ActivityView extends Doc {
  lines: ActivityLine[];
  _revision: number;
}

/** The few ids that recur on every line (agents, actors) are kept once, not once per line. */
const interned = new Map<string, string>();
const intern = (text: string) => {
  const known = interned.get(text);
  if (known !== undefined) return known;
  if (interned.size >= 10_000) interned.clear();
  interned.set(text, text);
  return text;
};

interface Page {
  docs: Map<string, ActivityView | null>;
  changed: Set<string>;
  deleted: Set<string>;
}

function add(page: Page, event: RecordedEvent<string, { ticketId: string }>, what: What, at = event.metadata.occurredAt) {
  const ticket = event.data.ticketId;
  if (page.deleted.has(ticket)) return;
  const doc = page.docs.get(ticket) ?? { _id: ticket, lines: [], _revision: -1 };
  if (doc._revision >= event.revision) return;
  const actor = event.metadata.actor;
  const line = {
    revision: event.revision,
    at,
    actor: actor ? intern(actor.userId) : null,
    platform: actor?.platform === 'telegram' ? ('telegram' as const) : ('web' as const),
  };
  doc.lines.push(what.kind === 'status' ? { ...line, ...what } : { ...line, kind: what.kind, value: intern(what.value) });
  doc._revision = event.revision;
  page.docs.set(ticket, doc);
  page.changed.add(ticket);
}

const evolve = dispatcher<Page, void>({
  TicketStatusChanged: (event, page) => add(page, event, { kind: 'status', value: event.data.to, ...(event.data.reason ? { reason: event.data.reason } : {}) }),
  AgentAssignedToTicket: (event, page) => add(page, event, { kind: 'assigned', value: event.data.agentId }),
  AgentUnassignedFromTicket: (event, page) => add(page, event, { kind: 'unassigned', value: event.data.agentId }),
  // "Moved to #1050" stands where the moved messages were: at the first one's time.
  MessagesMovedOut: (event, page) => add(page, event, { kind: 'moved', value: String(event.data.newNumber) }, event.data.messages[0]?.postedAt),
  TicketDeleted: (event, page) => {
    page.deleted.add(event.data.ticketId);
    page.docs.set(event.data.ticketId, null);
  },
});

/** A page of events: one read of the tickets it touches, one bulk write of the changed ones. */
async function applyActivityPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const views = store.collection<ActivityView>(TICKET_ACTIVITY);
  const ids = [...new Set(events.map((event) => String(event.data.ticketId)))];
  const page: Page = { docs: new Map(), changed: new Set(), deleted: new Set() };
  for (const doc of await views.find({ _id: { $in: ids } })) page.docs.set(doc._id, doc);
  for (const event of events) evolve.handle(event, page);
  const ops: BulkOp<ActivityView>[] = [];
  for (const id of page.changed) {
    const doc = page.docs.get(id);
    if (doc) ops.push({ replaceOne: { filter: { _id: id }, replacement: doc, upsert: true } });
  }
  for (const id of page.deleted) ops.push({ deleteOne: { filter: { _id: id } } });
  if (ops.length > 0) await views.bulkWrite(ops);
}

/** Serves the system lines of a ticket's conversation. */
export const ticketActivityProjection: Projection = {
  name: 'ticketActivity',
  version: 3,
  collections: [TICKET_ACTIVITY],
  types: evolve.types,
  apply: (event: RecordedEvent, store: ReadStore) => applyActivityPage([event], store),
  applyPage: applyActivityPage,
};
