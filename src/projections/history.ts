import { SLA_TARGET_WORDS, type TicketSla } from '#contract/sla';
import { categoryStream } from '../domain/category/category';
import type { ClaimWithdrawnEvent } from '../domain/reservation/reservation';
import { DamagedHistoryError, NotFoundError, ValidationError } from '#contract/errors';
import { FIRST_TICKET_NUMBER, TICKET_NUMBER_STREAM, type TicketEvent, canSeeMessage, ticketStream } from '../domain/ticket/ticket';
import type { SatisfactionChannel } from '#contract/satisfaction';
import { STATUS_WORDS } from '#contract/tickets';
import { CHANNEL_WORDS } from '../domain/satisfaction/satisfaction';
import { userStream } from '../domain/user/user';
import { type Role, isStaff } from '#contract/users';
import { verifyStreamEvents } from '../platform/eventstore/integrity';
import type { MessageVersion, TicketHistory } from '#contract/responses';
import { CorruptEventError, type EventStore, type RecordedEvent } from '../platform/eventstore/port';
import { MemoryReadStore } from '../platform/readstore/memory';
import type { ReadStore } from '../platform/readstore/port';
import { directoryProjection, findCategory, findPerson } from './directory';
import { latestEpisode, satisfactionProjection } from './satisfaction';
import { findSlaTicket, slaOf, slaProjection } from './sla';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView, ticketsProjection } from './tickets';

/**
 * A ticket's history read straight from its stream: the auditor's view. Nothing here trusts a read
 * model: names come from the people's own streams, and "the ticket as it was" is the tickets
 * projection replayed, into a private in-memory store, over the events up to that moment.
 */

const TICKET_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A ticket's stream: its own events, and the withdrawal of an open-ticket claim it never came to hold (docs/claims.md). */
export type TicketRecorded = RecordedEvent & (TicketEvent | ClaimWithdrawnEvent);

/** The events of a ticket's stream, found by record id or display number (also after deletion). */
async function readTicketHistory(events: EventStore, key: string): Promise<TicketRecorded[]> {
  const number = /^#?\d{1,9}$/.test(key) ? Number(key.replace('#', '')) : null;
  let ticketId: string | null = TICKET_KEY.test(key) ? key : null;
  if (number !== null && number >= FIRST_TICKET_NUMBER) {
    const [allocated] = await events.readStream(TICKET_NUMBER_STREAM, { fromRevision: number - FIRST_TICKET_NUMBER, maxCount: 1 });
    if (allocated) ticketId = String(allocated.data.ticketId);
  }
  const stream = ticketId ? await readDamageNamed(events, ticketStream(ticketId)) : [];
  if (stream[0]?.type !== 'TicketOpened') throw new NotFoundError('Ticket');
  return stream;
}

/** The stream, or, when one of its events can no longer be read, an error naming it (staff only: the routes of this file are). */
async function readDamageNamed(events: EventStore, streamId: string): Promise<TicketRecorded[]> {
  try {
    return (await events.readStream(streamId)) as TicketRecorded[];
  } catch (error) {
    if (!(error instanceof CorruptEventError)) throw error;
    const { revision, position, eventId, type } = error.event;
    throw damaged(
      `its event at revision ${revision} (${type}, position ${position}, id ${eventId}) cannot be read: its stored ${error.field} is not valid JSON`,
      {
        streamId,
        revision,
        position,
        eventId,
        type,
      },
    );
  }
}

/** A customer learns neither which event is damaged nor whether it was one they could see. */
const DAMAGED_FOR_CUSTOMER = "This ticket's earlier versions cannot be shown because part of its stored history is damaged. Please contact support.";

const damaged = (what: string, event: { streamId: string; revision: number; position: number; eventId: string; type: string }) =>
  new DamagedHistoryError(`This ticket's stored history is damaged: ${what}. npm run audit:verify checks the whole log.`, { damaged: event });

interface PersonName {
  userId: string;
  username: string;
  name: string;
  role: Role;
}

/** Everyone and every category a ticket's events mention. */
function mentioned(events: TicketRecorded[]) {
  const users = new Set<string>();
  const categories = new Set<string>();
  for (const event of events) {
    if (event.metadata.actor?.userId) users.add(event.metadata.actor.userId);
    const data: Record<string, unknown> = { ...event.data };
    for (const key of ['customerId', 'agentId', 'previousAgentId', 'senderId', 'readerId']) {
      if (typeof data[key] === 'string') users.add(data[key]);
    }
    if (event.type === 'TicketOpened') categories.add(event.data.categoryId);
    if (event.type === 'TicketCategoryChanged') [event.data.categoryId, event.data.previous].forEach((id) => categories.add(id));
    if (event.type === 'TicketMergedFrom' || event.type === 'MergedMessagesCopied' || event.type === 'MessagesMovedIn')
      for (const message of event.data.messages) users.add(message.senderId);
  }
  return { users: [...users], categories: [...categories] };
}

/**
 * The directory of those people and categories, replayed from their own streams into `store`,
 * up to a global position when given (names as they were then).
 */
async function directoryEvents(events: EventStore, ticketEvents: TicketRecorded[]): Promise<RecordedEvent[]> {
  const { users, categories } = mentioned(ticketEvents);
  const streams = await Promise.all([
    ...users.map((id) => events.readStream(userStream(id))),
    ...categories.map((id) => events.readStream(categoryStream(id))),
  ]);
  return streams.flat();
}

const quote = (text: string, max = 80) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `"${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}"`;
};
const files = (names: string[]) => `${names.length} ${names.length === 1 ? 'file' : 'files'} (${names.join(', ')})`;

function summarise(event: TicketRecorded, nameOf: (userId: string) => string, categoryName: (categoryId: string) => string): string {
  switch (event.type) {
    case 'TicketOpened': {
      const { number, title, priority, platform, customFieldValues } = event.data;
      const answers = customFieldValues.length > 0 ? `, ${customFieldValues.length} custom field ${customFieldValues.length === 1 ? 'answer' : 'answers'}` : '';
      return `Opened ticket #${number} ${quote(title)} for ${nameOf(event.data.customerId)} (${categoryName(event.data.categoryId)}, priority ${priority}${answers}) via ${platform === 'telegram' ? 'Telegram' : 'the web'}`;
    }
    case 'TicketTeamChanged': {
      const { teamName, previousTeamName, reason, categoryId } = event.data;
      if (reason === 'category-routing') return `Routed to the team ${quote(teamName ?? '')} by the category ${quote(categoryName(categoryId ?? ''))}`;
      const from = previousTeamName === null ? '' : ` (previously ${quote(previousTeamName)})`;
      return teamName === null ? `Took the ticket out of the team ${quote(previousTeamName ?? '')}` : `Put the ticket with the team ${quote(teamName)}${from}`;
    }
    case 'TicketTagAdded':
      return `Added the tag ${quote(event.data.tag)}`;
    case 'TicketTagRemoved':
      return `Removed the tag ${quote(event.data.tag)}`;
    case 'TicketTagRenamed': {
      const { from, to, merged, alreadyTagged } = event.data;
      const already = alreadyTagged ? `, which the ticket already had` : '';
      return merged ? `Merged the tag ${quote(from)} into ${quote(to)}${already}` : `Renamed the tag ${quote(from)} to ${quote(to)}${already}`;
    }
    case 'TicketPriorityChanged':
      return `Changed the priority from ${event.data.previous} to ${event.data.priority}`;
    case 'TicketCategoryChanged':
      return `Moved the ticket from the category ${quote(categoryName(event.data.previous))} to ${quote(categoryName(event.data.categoryId))}`;
    case 'SlaPolicyReapplied': {
      const { policyName, version } = event.data.policy;
      return `Follows the SLA policy ${quote(policyName)} (settings version ${version}) since its ${event.data.reason} changed; running clocks keep their time and take its targets`;
    }
    case 'TicketStatusChanged':
      return `Changed the status from ${STATUS_WORDS[event.data.from]} to ${STATUS_WORDS[event.data.to]}${event.data.reason === 'customer-replied' ? ' by replying' : ''}`;
    case 'AgentAssignedToTicket': {
      const { rule } = event.data;
      const by = rule ? ` by the team ${quote(rule.teamName)}'s ${rule.mode} rule` : '';
      return `Assigned the ticket to ${nameOf(event.data.agentId)}${event.data.previousAgentId ? ` (previously ${nameOf(event.data.previousAgentId)})` : ''}${by}`;
    }
    case 'AgentUnassignedFromTicket': {
      const { returned } = event.data;
      if (!returned) return `Unassigned ${nameOf(event.data.agentId)}`;
      return `Returned the ticket to the team ${quote(returned.teamName)}: ${nameOf(event.data.agentId)} was offline for longer than the grace period of ${graceWords(returned.graceSeconds)}`;
    }
    case 'TicketOutcomeRecorded':
      return event.data.previous === null
        ? `Recorded the outcome ${quote(event.data.outcomeMessage)}`
        : `Changed the outcome from ${quote(event.data.previous)} to ${quote(event.data.outcomeMessage)}`;
    case 'TicketDeleted':
      return `Deleted ticket #${event.data.number}`;
    case 'MessagePosted': {
      const { content, isInternal, attachments } = event.data;
      const names = attachments.map((a) => a.originalName);
      const what = isInternal ? 'Added an internal note' : 'Sent a message';
      if (!content) return `${isInternal ? 'Added an internal note with' : 'Sent'} ${files(names)}`;
      return `${what} ${quote(content)}${names.length > 0 ? ` with ${files(names)}` : ''}`;
    }
    case 'MessageEdited':
      return `Edited a message from ${quote(event.data.previousContent)} to ${quote(event.data.content)}`;
    case 'MessagesRead':
      return `${nameOf(event.data.readerId)} read the conversation up to message ${event.data.upTo}`;
    case 'SatisfactionRated':
      return event.data.previousScore === null
        ? `Rated the resolution ${event.data.score} of 5 via ${CHANNEL_WORDS[event.data.channel]}`
        : `Changed the rating from ${event.data.previousScore} to ${event.data.score} of 5 via ${CHANNEL_WORDS[event.data.channel]}`;
    case 'SatisfactionCommented':
      return `${event.data.previousComment === null ? 'Commented on the rating' : 'Changed the rating comment to'} ${quote(event.data.comment)} via ${CHANNEL_WORDS[event.data.channel]}`;
    case 'TicketMergedInto':
      return `Merged this ticket into #${event.data.targetNumber} (it was ${STATUS_WORDS[event.data.previousStatus]})`;
    case 'TicketMergedFrom': {
      const count = event.data.messageCount ?? event.data.messages.length;
      return `Merged #${event.data.sourceNumber} into this ticket with its ${count} ${count === 1 ? 'message' : 'messages'}${event.data.reopenedFrom ? ', reopening it' : ''}`;
    }
    case 'MergedMessagesCopied': {
      const count = event.data.messages.length;
      return `Copied ${count} more ${count === 1 ? 'message' : 'messages'} of #${event.data.sourceNumber} into this ticket, continuing its merge`;
    }
    case 'MergedMessagesRemoved': {
      const count = event.data.messageIds.length;
      return `Took ${count} ${count === 1 ? 'message' : 'messages'} of #${event.data.sourceNumber} out of this ticket, undoing its merge`;
    }
    case 'TicketMergeFromUndone':
      return `Undid the merge of #${event.data.sourceNumber}: its messages left this ticket${event.data.restoredStatus ? `, status back to ${STATUS_WORDS[event.data.restoredStatus]}` : ''}`;
    case 'TicketMergeIntoUndone': {
      const { targetNumber, restoredStatus, cancelled } = event.data;
      if (!cancelled) return `Undid the merge into #${targetNumber}: status back to ${STATUS_WORDS[restoredStatus]}`;
      const gone = cancelled.reason === 'target_deleted' ? 'was deleted' : `was merged into #${cancelled.targetMergedInto}`;
      return `Took back the merge into #${targetNumber}, which ${gone} at the same time: the ticket is ${STATUS_WORDS[restoredStatus]}`;
    }
    case 'MessagesMovedOut': {
      const count = event.data.messages.length;
      return `Moved ${count} ${count === 1 ? 'message' : 'messages'} to the new ticket #${event.data.newNumber} ${quote(event.data.title)}`;
    }
    case 'MessagesMovedIn': {
      const count = event.data.messages.length;
      return `Took ${count} ${count === 1 ? 'message' : 'messages'} moved out of #${event.data.sourceNumber}`;
    }
    case 'TicketLinked':
      return `Related this ticket to #${event.data.otherNumber}`;
    case 'TicketUnlinked':
      return `Removed the relation to #${event.data.otherNumber}`;
    case 'SlaPolicyApplied': {
      const { policyName, version, calendarName } = event.data.policy;
      const since = event.data.startsAt ? `; clocks from ${event.data.startsAt}, when the customer began waiting` : '';
      return `Follows the SLA policy ${quote(policyName)} (settings version ${version}, ${calendarName ? `business hours of ${quote(calendarName)}` : 'around the clock'}${since})`;
    }
    case 'SlaWarningRaised': {
      const { target, episode, kind, dueAt } = event.data;
      const what = `${SLA_TARGET_WORDS[target]}${episode > 1 ? ` (${episode})` : ''}`;
      return kind === 'breach' ? `${what} breached its target (due ${dueAt})` : `${what} reached the warning share of its target (due ${dueAt})`;
    }
    case 'RuleFired': {
      const { rule, matched, skipped } = event.data;
      const refused = skipped.map((step) => `; did not ${step.label}: ${step.reason}`).join('');
      return `Rule ${quote(rule.name)} (v${rule.version}) ran because ${matched.join(' and ')}${refused}`;
    }
    case 'RuleChainStopped': {
      const names = event.data.rules.map((rule) => `${quote(rule.name)} (v${rule.version})`).join(', ');
      return `Stopped a chain of rules at its bound of ${event.data.depth - 1} rules in a row: ${names} did not run again, so rules cannot loop`;
    }
    case 'ClaimWithdrawn':
      return `Withdrew the customer's open-ticket claim this ticket had made and not used for over five minutes`;
  }
}

/** The event's line in the history; an event whose stored data lacks what its type has (altered by hand) says so instead. */
function summaryOf(event: TicketRecorded, nameOf: (userId: string) => string, categoryName: (categoryId: string) => string): string {
  try {
    return summarise(event, nameOf, categoryName);
  } catch {
    return `Unreadable: its stored data does not have the fields of a ${event.type} event`;
  }
}

const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/**
 * An event a macro made says so first: "Applied macro "Refund issued" (v2): Changed the status..." (docs/macros.md);
 * one a rule made names the rule and its version: "Rule "Route urgent billing" (v3): put the ticket with the team..." (docs/automation.md);
 * one a bulk change made says so last: "Changed the status from open to closed in a bulk change of 50 tickets" (docs/bulk.md).
 */
function macroSummary(event: TicketRecorded, summary: string): string {
  const { macro, rule, bulk } = event.metadata;
  const told =
    rule && event.type !== 'RuleFired'
      ? `Rule ${quote(rule.name)} (v${rule.version}): ${lowerFirst(summary)}`
      : macro
        ? `Applied macro ${quote(macro.name)} (v${macro.version}): ${lowerFirst(summary)}`
        : summary;
  return bulk ? `${told} in a bulk change of ${bulk.count} ${bulk.count === 1 ? 'ticket' : 'tickets'}` : told;
}

/** The whole history of a ticket, oldest first, with names and readable summaries. */
export async function ticketHistory(events: EventStore, key: string): Promise<TicketHistory> {
  const stream = await readTicketHistory(events, key);
  const directory = new MemoryReadStore();
  for (const event of await directoryEvents(events, stream)) await directoryProjection.apply(event, directory);
  const people = new Map<string, PersonName>();
  for (const userId of mentioned(stream).users) {
    const person = await findPerson(directory, userId);
    people.set(userId, { userId, username: person.username, name: `${person.firstName} ${person.lastName}`.trim(), role: person.role });
  }
  const nameOf = (userId: string) => people.get(userId)?.name ?? 'Unknown user';
  const opened = stream[0] as TicketRecorded & { type: 'TicketOpened' };
  const categories = new Map<string, string>();
  for (const categoryId of mentioned(stream).categories) categories.set(categoryId, (await findCategory(directory, categoryId)).name);
  const verification = verifyStreamEvents(stream);
  return {
    ticketId: opened.data.ticketId,
    number: opened.data.number,
    events: stream.map((event) => {
      const { actor, macro, bulk, rule } = event.metadata;
      const person = rule ? { username: 'rule', name: `Rule ${quote(rule.name)} (v${rule.version})` } : actor ? people.get(actor.userId) : undefined;
      return {
        revision: event.revision,
        position: event.position,
        eventId: event.id,
        type: event.type,
        at: event.metadata.occurredAt,
        actor: actor
          ? {
              userId: actor.userId,
              username: person?.username ?? 'unknown',
              name: person?.name ?? 'Unknown user',
              role: actor.role,
              platform: actor.platform,
              ...(actor.token ? { token: { id: actor.token.id, label: actor.token.label } } : {}),
            }
          : null,
        summary: macroSummary(
          event,
          summaryOf(event, nameOf, (categoryId) => categories.get(categoryId) ?? 'Unknown category'),
        ),
        ...(macro ? { macro: { id: macro.id, name: macro.name, version: macro.version } } : {}),
        ...(bulk ? { bulk: { id: bulk.id, count: bulk.count } } : {}),
        ...(rule ? { rule: { id: rule.id, name: rule.name, version: rule.version, matched: rule.matched, depth: rule.depth } } : {}),
        data: { ...event.data },
        hash: event.chain?.hash ?? null,
      };
    }),
    integrity: { ok: verification.ok, head: verification.head, firstBreak: verification.firstBreak },
  };
}

export type Moment = { revision: number } | { time: string };

export interface TicketAtMoment {
  revision: number;
  position: number;
  at: string;
  latestRevision: number;
  /** The ticket was deleted by this moment; `ticket` then shows it as it was just before. */
  deleted: boolean;
  ticket: TicketView;
  messages: Array<MessageView & { versions?: MessageVersion[] }>;
  /** The customer's rating of the latest resolution as it stood then; null before the first resolution. */
  satisfaction: MomentRating | null;
  /** The ticket's service levels as they stood at the moment (docs/sla.md); null when it follows no policy. Staff only. */
  sla: TicketSla | null;
}

/** A rating at a moment of the ticket (docs/satisfaction.md). */
interface MomentRating {
  episode: number;
  resolvedAt: string;
  score: number | null;
  comment: string | null;
  channel: SatisfactionChannel | null;
  ratedAt: string | null;
  ended: 'reopened' | 'closed' | null;
}

/** Picks the last event at or before the moment. */
/**
 * The stream indexes of the events a customer can see the effect of: not internal notes (nor their
 * edits), the outcome or read marks. A customer's revisions count these only, so neither a
 * revision number nor a refusal tells them how much staff-only activity the ticket has.
 */
function customerRevisions(stream: TicketRecorded[]): number[] {
  const internal = new Set<string>();
  const visible: number[] = [];
  for (const [index, event] of stream.entries()) {
    if (event.type === 'MessagePosted' && event.data.isInternal) internal.add(event.data.messageId);
    if (!isStaffOnly(event, internal)) visible.push(index);
  }
  return visible;
}

/** Whether a ticket event is for staff only, given the ids of the stream's internal notes (also the event feed's rule). */
export function isStaffOnly(event: TicketRecorded, internal: ReadonlySet<string>): boolean {
  return (
    event.type === 'TicketOutcomeRecorded' ||
    event.type === 'ClaimWithdrawn' ||
    event.type === 'MessagesRead' ||
    event.type === 'SlaPolicyApplied' ||
    event.type === 'SlaPolicyReapplied' ||
    event.type === 'SlaWarningRaised' ||
    // Teams are how the desk shares its work (docs/teams.md): staff's to see.
    event.type === 'TicketTeamChanged' ||
    event.type === 'TicketTagAdded' ||
    event.type === 'TicketTagRemoved' ||
    event.type === 'TicketTagRenamed' ||
    event.type === 'RuleFired' ||
    event.type === 'RuleChainStopped' ||
    isAboutNote(event, internal)
  );
}

/** A posted or edited internal note. */
export const isAboutNote = (event: TicketRecorded, internal: ReadonlySet<string>): boolean =>
  (event.type === 'MessagePosted' || event.type === 'MessageEdited') && internal.has(event.data.messageId);

/** The chosen moment as a revision among `revisions` (stream indexes the viewer may count). */
function cutAt(stream: TicketRecorded[], revisions: number[], moment: Moment): number {
  const last = revisions.length - 1;
  if ('revision' in moment) {
    if (moment.revision > last)
      throw new ValidationError(`Revision ${moment.revision} does not exist: this ticket's history has revisions 0 to ${last}`, [
        { path: 'revision', message: `At most ${last}` },
      ]);
    return moment.revision;
  }
  const time = Date.parse(moment.time);
  let revision = -1;
  for (const [i, index] of revisions.entries()) if (Date.parse(stream[index]!.metadata.occurredAt) <= time) revision = i;
  if (revision < 0)
    throw new ValidationError(`The ticket did not exist yet at ${moment.time}: it was opened at ${stream[0]!.metadata.occurredAt}`, [
      { path: 'time', message: 'Before the ticket was opened' },
    ]);
  return revision;
}

/**
 * The ticket and its conversation exactly as the read models held them at a moment: the tickets
 * projection replayed over the ticket's events up to it, interleaved in log order with the directory
 * events (names as they were then). Staff also get every version of an edited message.
 */
export async function ticketAt(events: EventStore, key: string, moment: Moment, viewer: { id: string; role: Role }): Promise<TicketAtMoment> {
  const stream = await readTicketHistory(events, key).catch((error: unknown) => {
    throw error instanceof DamagedHistoryError && !isStaff(viewer.role) ? new DamagedHistoryError(DAMAGED_FOR_CUSTOMER) : error;
  });
  const opened = stream[0] as TicketRecorded & { type: 'TicketOpened' };
  if (!isStaff(viewer.role) && (opened.data.customerId !== viewer.id || stream.some((event) => event.type === 'TicketDeleted')))
    throw new NotFoundError('Ticket');
  const revisions = isStaff(viewer.role) ? stream.map((_, index) => index) : customerRevisions(stream);
  const cut = cutAt(stream, revisions, moment);
  const upTo = stream.slice(0, revisions[cut]! + 1);
  const position = upTo.at(-1)!.position;
  const replay = [
    ...upTo.filter((event) => event.type !== 'TicketDeleted'),
    ...(await directoryEvents(events, stream)).filter((event) => event.position <= position),
  ].sort((a, b) => a.position - b.position);
  const store: ReadStore = new MemoryReadStore();
  for (const event of replay) {
    try {
      await directoryProjection.apply(event, store);
      await ticketsProjection.apply(event, store);
      await satisfactionProjection.apply(event, store);
      await slaProjection.apply(event, store);
    } catch (error) {
      // Events the desk wrote fold; one altered by hand into another shape may not.
      if (!isStaff(viewer.role)) throw new DamagedHistoryError(DAMAGED_FOR_CUSTOMER);
      const reason = error instanceof Error ? error.message : String(error);
      throw damaged(`the event at position ${event.position} (${event.type}, stream ${event.streamId}, revision ${event.revision}) does not fold: ${reason}`, {
        streamId: event.streamId,
        revision: event.revision,
        position: event.position,
        eventId: event.id,
        type: event.type,
      });
    }
  }
  // A moment asked by time shows the clocks at that time (a target may have breached since the last event); by revision, at its event.
  const momentTime = 'time' in moment ? Date.parse(moment.time) : Date.parse(upTo.at(-1)!.metadata.occurredAt);
  const slaEntry = await findSlaTicket(store, opened.data.ticketId);
  const ticket = (await store.collection<TicketView>(TICKETS).findOne({ _id: opened.data.ticketId }))!;
  const episode = await latestEpisode(store, opened.data.ticketId);
  const messages = (await store.collection<MessageView>(TICKET_MESSAGES).find({ ticket: ticket._id }, { sort: { seq: 1 } })).filter((message) =>
    canSeeMessage(viewer.role, message),
  );
  const versions = new Map<string, MessageVersion[]>();
  if (isStaff(viewer.role)) {
    for (const event of upTo) {
      if (event.type === 'MessagePosted') versions.set(event.data.messageId, [{ content: event.data.content, at: event.metadata.occurredAt }]);
      if (event.type === 'MessageEdited') versions.get(event.data.messageId)?.push({ content: event.data.content, at: event.metadata.occurredAt });
    }
  }
  return {
    revision: cut,
    position,
    at: upTo.at(-1)!.metadata.occurredAt,
    latestRevision: revisions.length - 1,
    deleted: upTo.some((event) => event.type === 'TicketDeleted'),
    ticket,
    messages: messages.map((message) => {
      const earlier = versions.get(message._id);
      return earlier && earlier.length > 1 ? { ...message, versions: earlier } : message;
    }),
    satisfaction: episode && {
      episode: episode.episode,
      resolvedAt: episode.resolvedAt,
      score: episode.score,
      comment: episode.comment,
      channel: episode.channel,
      ratedAt: episode.ratedAt,
      ended: episode.ended,
    },
    sla: slaEntry ? slaOf(slaEntry.clock, momentTime) : null,
  };
}

/** "90 seconds", "15 minutes", "2 hours": the grace period as the admin set it. */
function graceWords(seconds: number): string {
  const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}
