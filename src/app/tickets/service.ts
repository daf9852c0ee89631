import { setTimeout as sleep } from 'node:timers/promises';
import { readYourWrites } from '../commands';
import { reservationStream } from '../../domain/reservation/reservation';
import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { answerCustomFields, type CustomFieldAnswer } from '#contract/customFields';
import {
  type AgentLookup,
  type CategoryLookup,
  OPEN_TICKET_CLAIM_NEEDED,
  type TeamLookup,
  type TicketActor,
  type TicketCommand,
  staffOnly,
  ticketDecider,
} from '../../domain/ticket/decide';
import type { CreateTicketInput } from '#contract/tickets';
import { type TicketOpenedData, type TicketState, ticketStream } from '../../domain/ticket/ticket';
import { type Attachment, type Platform, type Priority, type TicketStatus, isOpenStatus } from '#contract/tickets';
import { type Role, isStaff } from '#contract/users';
import { resolveMentions } from '../notifications/service';
import { type CommandContext, type Fence, handleCommand, loadState } from '../../platform/commands';
import { type EventStore, recordedAs } from '../../platform/eventstore/port';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { requestCaches } from '../caches';
import { tagsProjection } from '../../projections/tags';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView, postedMessageView, ticketsProjection } from '../../projections/tickets';
import { ticketActivityProjection } from '../../projections/ticketActivity';
import { USERS, type UserView } from '../../projections/users';
import { TEAMS, type TeamView } from '../../projections/teams';
import { policyForNewTicket } from '../sla/service';
import type { AppDeps } from '../deps';
import { type Claim, type Owners, claim, release } from '../reservations';
import { TicketNumbers } from './numbers';
import { assignByTeamRule } from './assignment';

/**
 * Ticket commands as the web API and the Telegram bot both run them: each answers only once the
 * caller's read models include its events (read-your-writes), so what was just done can be read.
 */

export const OPEN_TICKET_MESSAGE = 'Please resolve your existing ticket before creating a new one';
/** A customer's reply would reopen a resolved ticket while another of theirs is open (docs/tickets.md, reopening). */
const REOPEN_REFUSED_MESSAGE = 'You have another open ticket; please write there, as a customer has one open ticket at a time';
const numbersByStore = new WeakMap<EventStore, TicketNumbers>();
export const ticketNumbers = (events: EventStore) => numbersByStore.get(events) ?? numbersByStore.set(events, new TicketNumbers(events)).get(events)!;

export const actorOf = (context: CommandContext): TicketActor => ({ userId: context.actor.userId, role: context.actor.role as Role });

export const openTicketClaim = (customerId: string, conflictMessage = OPEN_TICKET_MESSAGE): Claim => ({
  kind: 'openticket',
  value: customerId,
  conflictMessage,
  conflictCode: 'OPEN_TICKET_EXISTS',
});

export const loadTicket = (deps: Pick<AppDeps, 'events'>, ticketId: string) => loadState(deps.events, ticketStream(ticketId), ticketDecider);

export const runTicketCommand = (deps: AppDeps, ticketId: string, command: TicketCommand, context: CommandContext, fences: Fence[] = []) =>
  handleCommand(deps.events, ticketStream(ticketId), ticketDecider, command, context, { fences });

/** A ticket holds its customer's open-ticket claim while it is open; resolving, closing or deleting it lets it go. */
export const ticketOwners: Owners<TicketState> = {
  stream: ticketStream,
  decider: ticketDecider,
  holds: (state, { value }) => state.kind === 'live' && isOpenStatus(state.status) && state.customerId === value,
  gone: (state) => state.kind === 'deleted',
};

/**
 * The 409 of docs/contract.md, naming the open ticket. Its holder claimed first and writes its ticket right
 * after, so a loser of a race may look a moment before that ticket exists.
 */
async function openTicketConflict(deps: AppDeps, customerId: string, message: string): Promise<ConflictError> {
  const [last] = await deps.events.readStream(reservationStream('openticket', customerId), { direction: 'backwards', maxCount: 1 });
  const holderId = last?.type === 'ValueReserved' ? (last.data as { ownerId: string }).ownerId : null;
  for (let attempt = 0; holderId && attempt < 30; attempt++) {
    const { state, events } = await loadTicket(deps, holderId);
    if (state.kind === 'live') {
      const opened = recordedAs<{ type: 'TicketOpened'; data: TicketOpenedData }>(events[0]!).data;
      return new ConflictError(message, 'OPEN_TICKET_EXISTS', {
        existingTicket: { _id: holderId, ticketId: opened.number, title: opened.title, status: state.status },
      });
    }
    if (state.kind === 'deleted') break;
    await sleep(50);
  }
  return new ConflictError(message, 'OPEN_TICKET_EXISTS', { existingTicket: holderId ? { _id: holderId } : null });
}

export async function claimOpenTicket(deps: AppDeps, customerId: string, ticketId: string, context: CommandContext, message?: string): Promise<Fence> {
  const wanted = openTicketClaim(customerId, message);
  try {
    return await claim(deps, ticketId, wanted, context, ticketOwners);
  } catch (error) {
    if (error instanceof ConflictError && error.code === wanted.conflictCode) throw await openTicketConflict(deps, customerId, wanted.conflictMessage);
    throw error;
  }
}

export const releaseOpenTicket = (deps: AppDeps, customerId: string, ticketId: string, context: CommandContext) =>
  release(deps, ticketId, openTicketClaim(customerId), context);

/**
 * The read models a ticket command's caller reads next (the ticket, its conversation with its
 * system lines, read marks, uploads): the only ones its answer waits for. The others catch up on their own.
 * The tags model too: a tag just added is in the suggestions and can be renamed or merged by the next request
 * (on MongoDB the models are written apart, and an admin's rename right after tagging found no such tag). Not
 * the search model: a search waits for it itself (`searchIsCurrent`), so a message just posted is still
 * found by its sender's next search.
 */
const TICKET_VIEWS = [ticketsProjection.name, ticketActivityProjection.name, tagsProjection.name];
export const ticketViewsReach = (deps: AppDeps, position: number) => readYourWrites(deps, position, TICKET_VIEWS);

export async function projectedTicket(deps: AppDeps, ticketId: string, position: number): Promise<TicketView> {
  await ticketViewsReach(deps, position);
  const ticket = await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: ticketId });
  if (!ticket) throw new NotFoundError('Ticket');
  return ticket;
}

export async function teamLookup(deps: AppDeps, teamId: string): Promise<TeamLookup | null> {
  const team = await deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: teamId });
  return team ? { teamId: team._id, name: team.name, archived: team.archived } : null;
}

async function categoryLookup(deps: AppDeps, categoryId: string): Promise<CategoryLookup | null> {
  const category = await deps.readStore.collection<CategoryView>(CATEGORIES).findOne({ _id: categoryId });
  if (!category) return null;
  const routeTeam = category.routeTeamId ? await teamLookup(deps, category.routeTeamId) : null;
  return { categoryId: category._id, isActive: category.isActive, customFields: category.customFields, routeTeam };
}

/** A file sent for a custom field arrives as `customFieldValues.<fieldName>` (or `customFieldValues[<fieldName>]`). */
export const customFieldOfFile = (fieldName: string) => /^customFieldValues(?:\.([^[\]]+)|\[([^[\]]+)\])$/.exec(fieldName)?.slice(1).find(Boolean) ?? null;

export interface OpenTicketRequest extends CreateTicketInput {
  files: Array<{ fieldName: string; attachment: Attachment }>;
  platform: Platform;
  /** Chosen by a caller that may retry (the Telegram worker): a retry finds its ticket instead of a 409. */
  ticketId?: string;
}

/**
 * Opens a ticket for the caller. The customer's open-ticket claim comes first, so of any number
 * of concurrent requests exactly one gets past it; only then is a display number spent.
 */
export async function openTicket(deps: AppDeps, request: OpenTicketRequest, context: CommandContext): Promise<TicketView> {
  const customerId = context.actor.userId;
  const category = await categoryLookup(deps, request.category);
  if (!category?.isActive) throw new ValidationError('Please choose an active category', [{ path: 'category', message: 'Please choose an active category' }]);
  // Built from entries, never by assignment: a file field named `__proto__` would set the prototype.
  const answers: Record<string, CustomFieldAnswer> = Object.fromEntries([
    ...Object.entries(request.customFieldValues),
    ...request.files.flatMap(({ fieldName, attachment }) => {
      const field = customFieldOfFile(fieldName);
      return field ? [[field, attachment] as const] : [];
    }),
  ]);
  // Refuse bad answers before claiming anything, so a rejected form costs no number.
  answerCustomFields(category.customFields, answers);

  const ticketId = request.ticketId ?? deps.newId();
  const existing = await loadTicket(deps, ticketId);
  if (existing.state.kind !== 'none') {
    if (request.ticketId && existing.state.kind === 'live' && existing.state.customerId === customerId)
      return projectedTicket(deps, ticketId, existing.events.at(-1)!.position);
    throw new ConflictError('This ticket already exists', 'TICKET_EXISTS');
  }
  const fence = await claimOpenTicket(deps, customerId, ticketId, context);
  let position: number;
  let routedTeam: { teamId: string } | null;
  try {
    const number = await ticketNumbers(deps.events).allocate(ticketId, context);
    const { title, description, priority, platform } = request;
    const sla = await policyForNewTicket(deps, category.categoryId, priority);
    const command: TicketCommand = { type: 'OpenTicket', ticketId, number, customerId, platform, title, description, priority, category, answers, sla };
    const opened = await runTicketCommand(deps, ticketId, command, context, [fence]);
    position = opened.position;
    routedTeam = opened.state.kind === 'live' ? opened.state.team : null;
  } catch (error) {
    // A twin of this request (the same caller-chosen id) may have opened the ticket, whose claim this one only renewed.
    if (!ticketOwners.holds((await loadTicket(deps, ticketId)).state, openTicketClaim(customerId)))
      await releaseOpenTicket(deps, customerId, ticketId, context);
    throw error;
  }
  if (routedTeam) position = Math.max(position, await assignRouted(deps, ticketId, routedTeam.teamId, context));
  return projectedTicket(deps, ticketId, position);
}

/** The opened ticket stands whatever its automatic assignment meets: a failure is logged and leaves it with the team, unassigned. */
async function assignRouted(deps: AppDeps, ticketId: string, teamId: string, context: CommandContext): Promise<number> {
  try {
    return await assignByTeamRule(deps, ticketId, teamId, context.correlationId);
  } catch (error) {
    deps.logger.warn({ err: error, ticketId, teamId }, 'automatic assignment failed; the ticket waits in its team');
    return 0;
  }
}

/**
 * Changes the status. Reopening a resolved or closed ticket takes its customer's open-ticket claim
 * back first (refused while another ticket of theirs is open); resolving or closing lets it go.
 */
export async function changeStatus(deps: AppDeps, ticketId: string, status: TicketStatus, context: CommandContext): Promise<number> {
  const actor = actorOf(context);
  // Checked before the claim below, which must come before the status event it protects.
  const state = staffOnly((await loadTicket(deps, ticketId)).state, actor);
  const reopening = !isOpenStatus(state.status) && isOpenStatus(status);
  const fences = reopening
    ? [await claimOpenTicket(deps, state.customerId, ticketId, context, 'This customer already has another open ticket; resolve it before reopening this one')]
    : [];
  try {
    const result = await runTicketCommand(deps, ticketId, { type: 'ChangeTicketStatus', ticketId, actor, status }, context, fences);
    if (!isOpenStatus(status) && result.events.length > 0) await releaseOpenTicket(deps, state.customerId, ticketId, context);
    return result.position;
  } catch (error) {
    if (reopening) await releaseOpenTicket(deps, state.customerId, ticketId, context);
    throw error;
  }
}

export async function agentLookup(deps: AppDeps, userId: string): Promise<AgentLookup | null> {
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  return user ? { userId: user._id, role: user.role, isActive: user.isActive } : null;
}

export async function assignTicket(deps: AppDeps, ticketId: string, agentId: string, context: CommandContext): Promise<number> {
  const command: TicketCommand = { type: 'AssignTicket', ticketId, actor: actorOf(context), agent: await agentLookup(deps, agentId) };
  return (await runTicketCommand(deps, ticketId, command, context)).position;
}

/** Puts the ticket with a team, or with none (`teamId` null); staff, with the actor in the event. */
export async function changeTeam(deps: AppDeps, ticketId: string, teamId: string | null, context: CommandContext): Promise<number> {
  const team = teamId === null ? null : await teamLookup(deps, teamId);
  return (await runTicketCommand(deps, ticketId, { type: 'ChangeTicketTeam', ticketId, actor: actorOf(context), teamId, team }, context)).position;
}

/** Puts a tag on the ticket or takes it off (staff, docs/teams.md). */
export async function tagTicket(deps: AppDeps, ticketId: string, tag: string, tagged: boolean, context: CommandContext): Promise<number> {
  return (await runTicketCommand(deps, ticketId, { type: 'TagTicket', ticketId, actor: actorOf(context), tag, tagged }, context)).position;
}

/**
 * A new priority or category, with the SLA policy chosen again for the ticket as it will be (docs/sla.md).
 * The policy is chosen for the ticket as read here; if the other of the two moved before the append, the
 * decider refuses and the change is decided again on the fresh ticket.
 */
export async function changeClassification(
  deps: AppDeps,
  ticketId: string,
  change: { priority: Priority } | { category: string },
  context: CommandContext,
): Promise<number> {
  const actor = actorOf(context);
  for (let attempt = 1; ; attempt++) {
    const ticket = staffOnly((await loadTicket(deps, ticketId)).state, actor);
    const categoryId = 'category' in change ? change.category : ticket.categoryId;
    const priority = 'priority' in change ? change.priority : ticket.priority;
    const sla = { policy: await policyForNewTicket(deps, categoryId, priority), categoryId, priority };
    const command: TicketCommand =
      'priority' in change
        ? { type: 'ChangeTicketPriority', ticketId, actor, priority, sla }
        : { type: 'ChangeTicketCategory', ticketId, actor, category: await categoryLookup(deps, categoryId), sla };
    try {
      return (await runTicketCommand(deps, ticketId, command, context)).position;
    } catch (error) {
      if (!(error instanceof ConflictError && error.code === 'CONCURRENT_CHANGE') || attempt >= 3) throw error;
    }
  }
}

export async function unassignTicket(deps: AppDeps, ticketId: string, context: CommandContext): Promise<number> {
  return (await runTicketCommand(deps, ticketId, { type: 'UnassignTicket', ticketId, actor: actorOf(context) }, context)).position;
}

export async function recordOutcome(deps: AppDeps, ticketId: string, outcomeMessage: string, context: CommandContext): Promise<number> {
  return (await runTicketCommand(deps, ticketId, { type: 'RecordOutcome', ticketId, actor: actorOf(context), outcomeMessage }, context)).position;
}

export async function deleteTicket(deps: AppDeps, ticketId: string, context: CommandContext): Promise<void> {
  const result = await runTicketCommand(deps, ticketId, { type: 'DeleteTicket', ticketId, actor: actorOf(context) }, context);
  for (const event of result.events) {
    if (event.type === 'TicketDeleted') await releaseOpenTicket(deps, event.data.customerId, ticketId, context);
  }
  await ticketViewsReach(deps, result.position);
}

export interface NewMessage {
  content: string;
  isInternal: boolean;
  attachments: Attachment[];
  platform: Platform;
  /** Chosen by a caller that may retry (the Telegram worker); a fresh id otherwise. */
  messageId?: string;
}

/**
 * Posts a message. The answer is built from the decided event (and the sender's name), not read
 * back from the conversation, which it still waits for so that the poster's next read includes it.
 */
export async function postMessage(
  deps: AppDeps,
  ticketId: string,
  { messageId = deps.newId(), ...message }: NewMessage,
  context: CommandContext,
): Promise<MessageView> {
  // Only staff's notes name colleagues (the decider keeps mentions on internal notes alone).
  const mentions = message.isInternal && isStaff(context.actor.role as Role) ? await resolveMentions(deps, message.content) : [];
  const command: TicketCommand = { type: 'PostMessage', ticketId, messageId, actor: actorOf(context), ...message, mentions, now: context.now };
  const result = await postReopening(deps, ticketId, command, context);
  const posted = result.events.find((event) => event.type === 'MessagePosted');
  const [sender] = await Promise.all([requestCaches(deps).person(context.actor.userId), ticketViewsReach(deps, result.position)]);
  if (posted?.type === 'MessagePosted' && result.state.kind === 'live') {
    const seq = result.state.messages.get(messageId)!.seq;
    return postedMessageView(posted.data, seq, sender, context.now.toISOString(), result.revision!);
  }
  // A retried post (its id already in the conversation) decides nothing: answer with what is stored,
  // once the read models include the first post, which may still be on its way.
  await ticketViewsReach(deps, await deps.events.headPosition());
  return storedMessage(deps, messageId);
}

/**
 * Runs a post; when the decider says the customer's reply reopens their resolved ticket, takes their
 * open-ticket claim for it first (409 `OPEN_TICKET_EXISTS` naming the other ticket while another is
 * open) and runs it again with the claim. A claim taken for a post that then fails is let go, unless
 * the ticket holds it all the same.
 */
async function postReopening(deps: AppDeps, ticketId: string, command: Extract<TicketCommand, { type: 'PostMessage' }>, context: CommandContext) {
  try {
    return await runTicketCommand(deps, ticketId, command, context);
  } catch (error) {
    if (!(error instanceof ConflictError) || error.code !== OPEN_TICKET_CLAIM_NEEDED) throw error;
  }
  const customerId = command.actor.userId;
  const fence = await claimOpenTicket(deps, customerId, ticketId, context, REOPEN_REFUSED_MESSAGE);
  try {
    return await runTicketCommand(deps, ticketId, { ...command, openTicketClaimed: true }, context, [fence]);
  } catch (error) {
    if (!ticketOwners.holds((await loadTicket(deps, ticketId)).state, openTicketClaim(customerId)))
      await releaseOpenTicket(deps, customerId, ticketId, context);
    throw error;
  }
}

export async function storedMessage(deps: AppDeps, messageId: string): Promise<MessageView> {
  const stored = await deps.readStore.collection<MessageView>(TICKET_MESSAGES).findOne({ _id: messageId });
  if (!stored) throw new NotFoundError('Message');
  return stored;
}

export async function editMessage(deps: AppDeps, ticketId: string, messageId: string, content: string, context: CommandContext): Promise<MessageView> {
  const command: TicketCommand = { type: 'EditMessage', ticketId, messageId, actor: actorOf(context), content, now: context.now };
  const result = await runTicketCommand(deps, ticketId, command, context);
  await ticketViewsReach(deps, result.position);
  const edited = await deps.readStore.collection<MessageView>(TICKET_MESSAGES).findOne({ _id: messageId });
  if (!edited) throw new NotFoundError('Message');
  return edited;
}

export async function markMessagesRead(deps: AppDeps, ticketId: string, context: CommandContext): Promise<void> {
  const result = await runTicketCommand(deps, ticketId, { type: 'MarkMessagesRead', ticketId, actor: actorOf(context) }, context);
  await ticketViewsReach(deps, result.position);
}
