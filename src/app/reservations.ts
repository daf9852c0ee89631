import { CLAIM_WITHDRAWN, reservationDecider, reservationStream } from '../domain/reservation/reservation';
import type { Decider, DomainEvent } from '../domain/shared/decider';
import { ConflictError } from '#contract/errors';
import { type CommandContext, type Fence, handleCommand, loadState, metadataOf } from '../platform/commands';
import { type RecordedEvent, isWrongExpectedVersion } from '../platform/eventstore/port';
import type { AppDeps } from './deps';

/** A unique value to claim in its reservation stream, and what to say when someone else holds it. */
export interface Claim {
  kind: string;
  value: string;
  conflictMessage: string;
  conflictCode: string;
}

/**
 * How an owner's own stream tells whether it holds a value: the user whose e-mail it is, the
 * canned message whose shortcode it is, the customer's ticket that is open.
 */
export interface Owners<State> {
  stream(ownerId: string): string;
  // The owners' deciders take their own commands; only folding is needed here.
  decider: Pick<Decider<never, DomainEvent, State>, 'evolve' | 'initialState'>;
  /** The owner holds the value in this state. */
  holds(state: State, claim: Claim): boolean;
  /** The owner is gone for good (deleted): it holds nothing and never will again. */
  gone(state: State): boolean;
}

/** A claim whose owner never came to hold it is taken over once it is this old (see `ClaimWithdrawn`). */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000;

/** Appends to a reservation stream are retried this often when other claims keep landing first. */
const CLAIM_ATTEMPTS = 10;

type Verdict = 'held' | 'let go' | 'read again';

const sameValue = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether the owner of the reservation `reserved` let the value go, read from its stream. Only
 * proofs that stay true are accepted: the owner is deleted; it held the value after this
 * reservation and no longer does (to hold it again it must claim again, which writes a new
 * reservation and so refuses a takeover decided on this one); or this reservation was withdrawn.
 * An owner that has not yet come to hold it is waiting to write its event, unless the reservation
 * is older than ABANDONED_AFTER_MS: then the claim is withdrawn in the owner's stream at the
 * revision read, which the owner's pending event, appended at its own read revision, cannot pass.
 */
async function verdictOn<State>(
  deps: Pick<AppDeps, 'events'>,
  owners: Owners<State>,
  reserved: RecordedEvent,
  wanted: Claim,
  claimantId: string,
  context: CommandContext,
): Promise<Verdict> {
  const holderId = String(reserved.data.ownerId);
  const stream = owners.stream(holderId);
  const events = await deps.events.readStream(stream);
  let state = owners.decider.initialState;
  let movedAway = false;
  let withdrawn = false;
  for (const event of events) {
    if (event.type === CLAIM_WITHDRAWN) {
      const { kind, value, reservation } = event.data as { kind: string; value: string; reservation: number };
      withdrawn ||= kind === wanted.kind && sameValue(value, wanted.value) && reservation === reserved.revision;
      continue;
    }
    const before = owners.holds(state, wanted);
    state = owners.decider.evolve(state, event);
    movedAway ||= event.position > reserved.position && before && !owners.holds(state, wanted);
  }
  if (withdrawn || owners.gone(state)) return 'let go';
  if (owners.holds(state, wanted)) return 'held';
  if (movedAway) return 'let go';
  if (context.now.getTime() - new Date(reserved.metadata.occurredAt).getTime() <= ABANDONED_AFTER_MS) return 'held';
  try {
    const data = { kind: wanted.kind, value: wanted.value, ownerId: holderId, reservation: reserved.revision, by: claimantId };
    await deps.events.append(stream, [{ type: CLAIM_WITHDRAWN, data, metadata: metadataOf(context) }], events.at(-1)?.revision ?? 'no_stream');
    return 'let go';
  } catch (error) {
    if (isWrongExpectedVersion(error)) return 'read again';
    throw error;
  }
}

/**
 * Claims a value for `ownerId`. Every claim appends a reservation at the exact revision it read, so
 * of concurrent claims one lands and the others read again; a value held by another owner is taken
 * over only when `verdictOn` proves that owner let it go. Answers the fence that the owner's own
 * command must carry (`handleCommand`'s `fences`), which refuses it if the claim was withdrawn.
 */
export async function claim<State>(
  deps: Pick<AppDeps, 'events'>,
  ownerId: string,
  wanted: Claim,
  context: CommandContext,
  owners: Owners<State>,
): Promise<Fence> {
  const stream = reservationStream(wanted.kind, wanted.value);
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
    const [last] = await deps.events.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const holderId = last?.type === 'ValueReserved' ? String(last.data.ownerId) : null;
    let takeOverFrom: string | undefined;
    if (last && holderId !== null && holderId !== ownerId) {
      const verdict = await verdictOn(deps, owners, last, wanted, ownerId, context);
      if (verdict === 'held') break;
      if (verdict === 'read again') continue;
      takeOverFrom = holderId;
    }
    const events = reservationDecider.decide({ type: 'Reserve', ownerId, ...wanted, takeOverFrom }, { ownerId: holderId });
    try {
      const appended = await deps.events.append(
        stream,
        events.map(({ type, data }) => ({ type, data, metadata: metadataOf(context) })),
        last?.revision ?? 'no_stream',
      );
      return { ...wanted, reservation: appended.nextRevision };
    } catch (error) {
      if (!isWrongExpectedVersion(error)) throw error;
    }
  }
  throw new ConflictError(wanted.conflictMessage, wanted.conflictCode);
}

/** Lets a value go; a no-op when its reservation is no longer this owner's. */
export const release = (deps: Pick<AppDeps, 'events'>, ownerId: string, { kind, value }: Pick<Claim, 'kind' | 'value'>, context: CommandContext) =>
  handleCommand(deps.events, reservationStream(kind, value), reservationDecider, { type: 'Release', kind, value, ownerId }, context);

/**
 * Claims every value, runs `work` with their fences, and if anything fails releases what it claimed,
 * except a value the owner holds all the same: a twin of this command for the same owner id (a
 * retried request) that wrote it, whose claim this one only renewed.
 */
export async function withClaims<T, State>(
  deps: Pick<AppDeps, 'events'>,
  ownerId: string,
  claims: Claim[],
  context: CommandContext,
  owners: Owners<State>,
  work: (fences: Fence[]) => Promise<T>,
): Promise<T> {
  const fences: Fence[] = [];
  try {
    for (const wanted of claims) fences.push(await claim(deps, ownerId, wanted, context, owners));
    return await work(fences);
  } catch (error) {
    if (fences.length > 0) {
      const { state } = await loadState(deps.events, owners.stream(ownerId), owners.decider);
      for (const held of fences) if (!owners.holds(state, held)) await release(deps, ownerId, held, context);
    }
    throw error;
  }
}
