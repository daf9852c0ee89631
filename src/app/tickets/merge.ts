import { ConflictError } from '#contract/errors';
import { isOpenStatus } from '#contract/tickets';
import { mergeTargetGone, staffOnly, ticketDecider } from '../../domain/ticket/decide';
import type { MessagesMovedOutData, TicketOpenedData, TicketState } from '../../domain/ticket/ticket';
import type { CommandContext, Fence } from '../../platform/commands';
import { recordedAs } from '../../platform/eventstore/port';
import type { AppDeps } from '../deps';
import { policyForNewTicket } from '../sla/service';
import {
  actorOf,
  claimOpenTicket,
  loadTicket,
  openTicketClaim,
  releaseOpenTicket,
  runTicketCommand,
  ticketNumbers,
  ticketOwners,
  ticketViewsReach,
} from './service';

const DAY_MS = 86_400_000;

/** Tries more than once only while racing merges keep freeing the target again (docs/tickets.md, merges under races). */
const MERGE_ATTEMPTS = 3;

const isMergeConflict = (error: unknown) => error instanceof ConflictError && error.code === 'MERGE_CONFLICT';

/** The customer's open-ticket claim for `ticketId` if nobody else holds it (the fence), else null. */
const claimIfFree = (deps: AppDeps, customerId: string, ticketId: string, context: CommandContext): Promise<Fence | null> =>
  claimOpenTicket(deps, customerId, ticketId, context).catch((error: unknown) => {
    if (error instanceof ConflictError) return null;
    throw error;
  });

/** After a failed command that carried `fence`: lets the claim go unless the ticket holds it all the same (a twin that landed). */
async function releaseUnlessHeld(deps: AppDeps, fence: Fence | null, ticketId: string, context: CommandContext) {
  if (fence && !ticketOwners.holds((await loadTicket(deps, ticketId)).state, openTicketClaim(fence.value)))
    await releaseOpenTicket(deps, fence.value, ticketId, context);
}

/**
 * Merges `sourceId` into `targetId` (docs/tickets.md, merging). Two streams cannot take one atomic
 * append, so the order is fixed: the source first (closed, redirecting), at the revision its rules
 * were checked against; its open-ticket claim let go; the claim taken for the target when the merge
 * reopens it; then the target, which copies the source's conversation. A crash between the appends
 * leaves a source that redirects to a target without its messages yet: running the same merge again
 * decides nothing on the source and completes the target, each step being a no-op when done.
 * The target refuses the source when it went away between the appends (merged on, or deleted, by a
 * racing request): the source's half is then taken back (`cancelMerge`) and the answer is 409
 * `MERGE_CONFLICT`, unless the target has been freed again meanwhile, when the merge is run again.
 * Answers the log position of the last event written.
 */
export async function mergeTickets(deps: AppDeps, sourceId: string, targetId: string, context: CommandContext): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await mergeOnce(deps, sourceId, targetId, context);
    } catch (error) {
      if (!isMergeConflict(error)) throw error;
      const target = (await loadTicket(deps, targetId)).state;
      if (mergeTargetGone(target, sourceId)) await cancelMerge(deps, sourceId, targetId, target, context);
      else if (attempt < MERGE_ATTEMPTS) continue;
      throw error;
    }
  }
}

async function mergeOnce(deps: AppDeps, sourceId: string, targetId: string, context: CommandContext): Promise<number> {
  const actor = actorOf(context);
  const target = (await loadTicket(deps, targetId)).state;
  const into = await runTicketCommand(deps, sourceId, { type: 'MergeInto', ticketId: sourceId, actor, target, now: context.now }, context);
  const source = staffOnly(into.state, actor);
  await releaseOpenTicket(deps, source.customerId, sourceId, context);
  // Refused only when the customer has another open ticket: the target then takes the messages and stays as it is.
  const fence =
    target.kind === 'live' && !isOpenStatus(target.status) && !target.mergedFrom.some((link) => link.ticketId === sourceId)
      ? await claimIfFree(deps, target.customerId, targetId, context)
      : null;
  try {
    const mergeFrom = { type: 'MergeFrom' as const, ticketId: targetId, actor, source: into.state, reopen: fence !== null, now: context.now };
    let position = into.position;
    // One bounded event per append, until the target decides nothing more (docs/tickets.md, large merges).
    for (let part = 0; ; part++) {
      const from = await runTicketCommand(deps, targetId, { ...mergeFrom, continuing: part > 0 }, context, part === 0 && fence ? [fence] : []);
      position = Math.max(position, from.position);
      if (from.events.length === 0) break;
    }
    await ticketViewsReach(deps, position);
    return position;
  } catch (error) {
    await releaseUnlessHeld(deps, fence, targetId, context);
    throw error;
  }
}

/**
 * Takes back the source's half of a merge its target can no longer take (docs/tickets.md, merges
 * under races), as an event of the merging agent with the reason: the source stands alone again with
 * the status it had. An open status takes its customer's open-ticket claim back first (docs/claims.md);
 * when another ticket of theirs holds it by then, the source comes back resolved.
 */
async function cancelMerge(deps: AppDeps, sourceId: string, targetId: string, target: TicketState, context: CommandContext): Promise<void> {
  const { state } = await loadTicket(deps, sourceId);
  if (state.kind !== 'live' || state.mergedInto?.ticketId !== targetId) return;
  const fence = isOpenStatus(state.mergedInto.previousStatus) ? await claimIfFree(deps, state.customerId, sourceId, context) : null;
  try {
    const command = { type: 'CancelMergeInto' as const, ticketId: sourceId, actor: actorOf(context), target, reopen: fence !== null };
    await ticketViewsReach(deps, (await runTicketCommand(deps, sourceId, command, context, fence ? [fence] : [])).position);
  } catch (error) {
    await releaseUnlessHeld(deps, fence, sourceId, context);
    throw error;
  }
}

/**
 * Undoes the merge of `sourceId` (docs/tickets.md, merging), in the merge's order reversed: the
 * target first (the copied messages leave it, a status the merge reopened goes back and its claim
 * with it), then the source (its own status again, taking its customer's claim back when that status
 * is open). The window and the rules are checked on the source before anything is written, so a
 * refusal changes nothing; a crash between the appends is completed by undoing again.
 */
export async function unmergeTicket(deps: AppDeps, sourceId: string, context: CommandContext): Promise<number> {
  const actor = actorOf(context);
  const windowMs = deps.config.MERGE_UNDO_WINDOW_DAYS * DAY_MS;
  const undoInto = { type: 'UndoMergeInto' as const, ticketId: sourceId, actor, windowMs, now: context.now };
  const loaded = await loadTicket(deps, sourceId);
  ticketDecider.decide(undoInto, loaded.state);
  const source = staffOnly(loaded.state, actor);
  const merged = source.mergedInto!;
  const undoFrom = { type: 'UndoMergeFrom' as const, ticketId: merged.ticketId, actor, sourceId };
  let from = await runTicketCommand(deps, merged.ticketId, undoFrom, context);
  // A large merge's copies leave in bounded parts, one append each, before the event that ends it.
  while (from.events[0]?.type === 'MergedMessagesRemoved') from = await runTicketCommand(deps, merged.ticketId, undoFrom, context);
  const undone = from.events[0];
  if (undone?.type === 'TicketMergeFromUndone' && undone.data.restoredStatus && !isOpenStatus(undone.data.restoredStatus) && from.state.kind === 'live')
    await releaseOpenTicket(deps, from.state.customerId, merged.ticketId, context);
  const fences = isOpenStatus(merged.previousStatus)
    ? [await claimOpenTicket(deps, source.customerId, sourceId, context, 'This customer has another open ticket now; resolve it before undoing the merge')]
    : [];
  try {
    const into = await runTicketCommand(deps, sourceId, undoInto, context, fences);
    const position = Math.max(from.position, into.position);
    await ticketViewsReach(deps, position);
    return position;
  } catch (error) {
    if (fences.length > 0) await releaseOpenTicket(deps, source.customerId, sourceId, context);
    throw error;
  }
}

/**
 * Relates two tickets, or undoes that (`linked` false): each stream records its side, the one asked
 * about first. Each side is a no-op once done, so a relation cut short by a crash is completed by
 * asking again.
 */
export async function relateTickets(deps: AppDeps, ticketId: string, otherId: string, linked: boolean, context: CommandContext): Promise<number> {
  const actor = actorOf(context);
  const [ticket, other] = await Promise.all([loadTicket(deps, ticketId), loadTicket(deps, otherId)]);
  const here = await runTicketCommand(deps, ticketId, { type: 'LinkTicket', ticketId, actor, other: other.state, linked }, context);
  const there = await runTicketCommand(deps, otherId, { type: 'LinkTicket', ticketId: otherId, actor, other: ticket.state, linked }, context);
  return Math.max(here.position, there.position);
}

export interface SplitRequest {
  messageId: string;
  withFollowing: boolean;
  title: string;
}

/**
 * "Move to a new ticket" (docs/tickets.md, splitting). The source first: the messages leave it,
 * carried whole in its `MessagesMovedOut`, and an open source is resolved, letting its customer's
 * open-ticket claim go; then the new ticket takes the claim and is written from that event. The
 * rules and the claim of a source that is not open are checked before anything is written (another
 * open ticket of the customer: 409). A crash between the appends leaves "Moved to #N" before #N
 * exists: the same request run again finds the message moved and writes the new ticket. Answers the
 * new ticket's id and the last position written.
 */
export async function splitTicket(
  deps: AppDeps,
  ticketId: string,
  request: SplitRequest,
  context: CommandContext,
): Promise<{ newTicketId: string; position: number }> {
  const actor = actorOf(context);
  const loaded = await loadTicket(deps, ticketId);
  const source = staffOnly(loaded.state, actor);
  const opened = recordedAs<{ type: 'TicketOpened'; data: TicketOpenedData }>(loaded.events[0]!).data;
  const done = source.movedOut[request.messageId];
  if (done) return completeSplit(deps, ticketId, done.ticketId, opened, context, 0);
  const newTicketId = deps.newId();
  const moveOut = { type: 'MoveOut' as const, ticketId, actor, ...request, newTicketId, newNumber: 0 };
  ticketDecider.decide(moveOut, loaded.state);
  // A source that is not open holds no claim to hand over: the new ticket must get it before anything is written.
  const early = isOpenStatus(source.status) ? [] : [await claimOpenTicket(deps, source.customerId, newTicketId, context)];
  try {
    const newNumber = await ticketNumbers(deps.events).allocate(newTicketId, context);
    const out = await runTicketCommand(deps, ticketId, { ...moveOut, newNumber }, context);
    if (out.events.some((event) => event.type === 'TicketStatusChanged')) await releaseOpenTicket(deps, source.customerId, ticketId, context);
    return await completeSplit(deps, ticketId, newTicketId, opened, context, out.position, early);
  } catch (error) {
    if (early.length > 0) await releaseOpenTicket(deps, source.customerId, newTicketId, context);
    throw error;
  }
}

async function completeSplit(
  deps: AppDeps,
  ticketId: string,
  newTicketId: string,
  sourceOpened: TicketOpenedData,
  context: CommandContext,
  position: number,
  claimed: Fence[] = [],
): Promise<{ newTicketId: string; position: number }> {
  const actor = actorOf(context);
  const { events } = await loadTicket(deps, ticketId);
  const movedOut = recordedAs<{ type: 'MessagesMovedOut'; data: MessagesMovedOutData }>(
    events.find((event) => event.type === 'MessagesMovedOut' && event.data.newTicketId === newTicketId)!,
  ).data;
  const fences = claimed.length > 0 ? claimed : [await claimOpenTicket(deps, sourceOpened.customerId, newTicketId, context)];
  const sla = await policyForNewTicket(deps, sourceOpened.categoryId, sourceOpened.priority);
  const opened = await runTicketCommand(deps, newTicketId, { type: 'OpenSplit', ticketId: newTicketId, actor, sourceOpened, movedOut, sla }, context, fences);
  const last = Math.max(position, opened.position);
  await ticketViewsReach(deps, last);
  return { newTicketId, position: last };
}

/**
 * Completes a merge or split that stopped between its two appends (a crash, a failed second
 * write), as the agent's retry would, acting as the agent who started it: the source's
 * `TicketMergedInto` without its target's `TicketMergedFrom`, or `MessagesMovedOut` without the new
 * ticket. A merge whose target went away meanwhile (merged on or deleted) is taken back instead, as
 * the agent's retry would. Answers what it did; a step already done, undone or overtaken does nothing.
 */
export async function completeInterrupted(
  deps: AppDeps,
  event:
    { type: 'TicketMergedInto'; sourceId: string; targetId: string } | { type: 'MessagesMovedOut'; sourceId: string; newTicketId: string; messageId: string },
  context: CommandContext,
): Promise<'completed' | 'taken back' | 'nothing to do'> {
  const source = (await loadTicket(deps, event.sourceId)).state;
  if (source.kind !== 'live') return 'nothing to do';
  if (event.type === 'TicketMergedInto') {
    // Still merged into that target (not undone since), and the target has not taken the messages.
    if (source.mergedInto?.ticketId !== event.targetId) return 'nothing to do';
    const target = (await loadTicket(deps, event.targetId)).state;
    if (target.kind === 'live' && target.mergedFrom.some((link) => link.ticketId === event.sourceId && link.remaining === 0)) return 'nothing to do';
    try {
      await mergeTickets(deps, event.sourceId, event.targetId, context);
      return 'completed';
    } catch (error) {
      if (isMergeConflict(error)) return 'taken back';
      throw error;
    }
  }
  if ((await loadTicket(deps, event.newTicketId)).state.kind !== 'none') return 'nothing to do';
  await splitTicket(deps, event.sourceId, { messageId: event.messageId, withFollowing: false, title: '' }, context);
  return 'completed';
}
