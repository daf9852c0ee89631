import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, DomainError } from '#contract/errors';
import type { BulkAction, BulkTicketResult } from '#contract/bulk';
import type { Role } from '#contract/users';
import { bulkStream } from '../../domain/bulk/bulk';
import { BULK_STARTED, type BulkCommand, bulkDecider } from '../../domain/bulk/decide';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { isWrongExpectedVersion } from '../../platform/eventstore/port';
import { nameBasedId } from '../../platform/ids';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { applyMacro } from '../macros/service';
import { assignTicket, changeClassification, changeStatus, changeTeam, loadTicket, tagTicket, ticketViewsReach, unassignTicket } from '../tickets/service';

/**
 * Bulk changes (docs/bulk.md): one action on many tickets, each ticket changed by the same handler
 * and decider as its single-ticket route, with its own events, its own actor and the bulk change in
 * their metadata. A ticket refused is reported with that route's error; the others are applied.
 */

/** Tickets changed at once: enough to keep the log's group commit busy, few enough to leave room for everyone else. */
const CONCURRENCY = 8;
/** How long a second request for one bulk change waits for the first's results. */
const TWIN_WAIT_MS = 60_000;
/** A change started this long ago without results was stopped by a crash: whoever asks for it again finishes it. */
const RESUME_AFTER_MS = 2 * 60_000;

export interface BulkChange {
  _id: string;
  action: BulkAction;
  total: number;
  applied: number;
  unchanged: number;
  failed: number;
  tickets: BulkTicketResult[];
}

const runBulk = (deps: AppDeps, bulkId: string, command: BulkCommand, context: CommandContext) =>
  handleCommand(deps.events, bulkStream(bulkId), bulkDecider, command, context);

/** One ticket's change, through the single route's handler: its position in the log, 0 when nothing needed changing. */
async function changeOne(deps: AppDeps, ticketId: string, action: BulkAction, context: CommandContext, bulkId: string): Promise<number> {
  switch (action.type) {
    case 'assign':
      return assignTicket(deps, ticketId, action.agentId === 'me' ? context.actor.userId : action.agentId, context);
    case 'unassign':
      return unassignTicket(deps, ticketId, context);
    case 'status':
      return changeStatus(deps, ticketId, action.status, context);
    case 'priority':
      return changeClassification(deps, ticketId, { priority: action.priority }, context);
    case 'team':
      return changeTeam(deps, ticketId, action.teamId, context);
    case 'tags': {
      // Removing a tag a ticket does not carry is no failure here: the tickets of a view rarely all carry it.
      const { state } = await loadTicket(deps, ticketId);
      const carried = state.kind === 'live' ? state.tags : [];
      let position = 0;
      for (const tag of action.remove.filter((tag) => carried.includes(tag)))
        position = Math.max(position, await tagTicket(deps, ticketId, tag, false, context));
      for (const tag of action.add) position = Math.max(position, await tagTicket(deps, ticketId, tag, true, context));
      return position;
    }
    case 'macro': {
      const input = action.version === undefined ? {} : { version: action.version };
      return applyMacro(deps, ticketId, action.macroId, input, context, (index) => nameBasedId(`${bulkStream(bulkId)}/${ticketId}/message-${index}`));
    }
  }
}

function failure(error: unknown): Pick<BulkTicketResult, 'status' | 'code' | 'error'> {
  if (error instanceof DomainError) return { status: error.status, code: error.code, error: error.message };
  if (isWrongExpectedVersion(error)) return { status: 409, code: 'CONCURRENT_CHANGE', error: 'Someone else changed this at the same time; please try again' };
  throw error;
}

const summary = (bulkId: string, action: BulkAction, tickets: BulkTicketResult[]): BulkChange => ({
  _id: bulkId,
  action,
  total: tickets.length,
  applied: tickets.filter((ticket) => ticket.outcome === 'applied').length,
  unchanged: tickets.filter((ticket) => ticket.outcome === 'unchanged').length,
  failed: tickets.filter((ticket) => ticket.outcome === 'failed').length,
  tickets,
});

/** Changes each ticket (a few at a time), then records the results on the bulk change's stream. */
async function changeEach(deps: AppDeps, bulkId: string, tickets: string[], action: BulkAction, context: CommandContext): Promise<BulkChange> {
  const within: CommandContext = { ...context, bulk: { id: bulkId, count: tickets.length } };
  const numbers = new Map(
    (await deps.readStore.collection<TicketView>(TICKETS).find({ _id: { $in: tickets } }, { limit: tickets.length })).map((ticket) => [
      ticket._id,
      ticket.ticketId,
    ]),
  );
  const results: BulkTicketResult[] = new Array(tickets.length);
  let next = 0;
  let position = 0;
  const worker = async () => {
    for (let index = next++; index < tickets.length; index = next++) {
      const ticketId = tickets[index]!;
      const result: BulkTicketResult = { _id: ticketId, ticketId: numbers.get(ticketId) ?? null, outcome: 'unchanged' };
      try {
        const at = await changeOne(deps, ticketId, action, within, bulkId);
        position = Math.max(position, at);
        if (at > 0) result.outcome = 'applied';
      } catch (error) {
        Object.assign(result, { outcome: 'failed' }, failure(error));
      }
      results[index] = result;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, tickets.length) }, worker));
  const completed = await runBulk(deps, bulkId, { type: 'CompleteBulkChange', bulkId, results }, context);
  await ticketViewsReach(deps, position);
  // A change resumed after a crash may find the results already recorded by another request: those are the answer.
  return summary(bulkId, action, completed.state.kind === 'completed' ? completed.state.results : results);
}

/** Starts the bulk change `bulkId` and applies it; a second start of the same change answers the first's results. */
export async function bulkChange(deps: AppDeps, tickets: string[], action: BulkAction, context: CommandContext, bulkId: string): Promise<BulkChange> {
  const start: BulkCommand = { type: 'StartBulkChange', bulkId, role: context.actor.role as Role, tickets, action, now: context.now };
  try {
    await runBulk(deps, bulkId, start, context);
  } catch (error) {
    if (error instanceof ConflictError && error.code === BULK_STARTED) return bulkResult(deps, bulkId, context);
    throw error;
  }
  return changeEach(deps, bulkId, tickets, action, context);
}

/** Whether the bulk change `bulkId` was started (by an earlier request with the same Idempotency-Key). */
export async function bulkStarted(deps: AppDeps, bulkId: string): Promise<string | null> {
  const [first] = await deps.events.readStream(bulkStream(bulkId), { maxCount: 1 });
  return first ? bulkId : null;
}

/**
 * The results of a started bulk change: waited for while another request applies it, or, when that
 * request stopped long ago without recording them (a crash), finished here: every ticket's change is
 * decided again on its ticket as it stands, so what was applied is not applied twice.
 */
export async function bulkResult(deps: AppDeps, bulkId: string, context: CommandContext): Promise<BulkChange> {
  const deadline = Date.now() + TWIN_WAIT_MS;
  for (;;) {
    const { state, events } = await loadState(deps.events, bulkStream(bulkId), bulkDecider);
    if (state.kind === 'completed') {
      await readYourWrites(deps, events.at(-1)!.position);
      return summary(bulkId, state.action, state.results);
    }
    if (state.kind === 'none') throw new ConflictError('This bulk change was not found', 'BULK_NOT_FOUND');
    if (deps.clock().getTime() - Date.parse(state.startedAt) > RESUME_AFTER_MS) return changeEach(deps, bulkId, state.tickets, state.action, context);
    if (Date.now() > deadline) throw new ConflictError('This bulk change is still being applied; ask again in a moment', 'BULK_IN_PROGRESS');
    await sleep(100);
  }
}
