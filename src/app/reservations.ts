import { reservationDecider, reservationStream } from '../domain/reservation/reservation';
import { ConflictError } from '#contract/errors';
import { type CommandContext, handleCommand } from '../platform/commands';
import type { AppDeps } from './deps';

/** A unique value to claim in its reservation stream, and what to say when someone else holds it. */
export interface Claim {
  kind: string;
  value: string;
  conflictMessage: string;
  conflictCode: string;
}

/**
 * Tells whether the holder of a claimed value let it go without releasing it (deleted, moved to
 * another value, or never created because a crash came between claim and creation).
 */
export type AbandonedCheck = (holderId: string, claim: Claim, reservedAt: Date) => Promise<boolean>;

/**
 * Claims a value: of two concurrent claims exactly one append succeeds. A value whose holder
 * abandoned it is taken over rather than lost forever.
 */
export async function claim(deps: Pick<AppDeps, 'events'>, ownerId: string, wanted: Claim, context: CommandContext, abandoned: AbandonedCheck): Promise<void> {
  const stream = reservationStream(wanted.kind, wanted.value);
  const command = { type: 'Reserve' as const, ownerId, ...wanted };
  try {
    await handleCommand(deps.events, stream, reservationDecider, command, context);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const [last] = await deps.events.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const holder = last?.type === 'ValueReserved' ? (last.data as { ownerId: string }).ownerId : null;
    if (!last || !holder || !(await abandoned(holder, wanted, new Date(last.metadata.occurredAt)))) throw error;
    await handleCommand(deps.events, stream, reservationDecider, { ...command, takeOverFrom: holder }, context);
  }
}

export const release = (deps: Pick<AppDeps, 'events'>, ownerId: string, { kind, value }: Pick<Claim, 'kind' | 'value'>, context: CommandContext) =>
  handleCommand(deps.events, reservationStream(kind, value), reservationDecider, { type: 'Release', kind, value, ownerId }, context);

/** Claims every value, runs `work`, and releases what it claimed if anything fails. */
export async function withClaims<T>(
  deps: Pick<AppDeps, 'events'>,
  ownerId: string,
  claims: Claim[],
  context: CommandContext,
  abandoned: AbandonedCheck,
  work: () => Promise<T>,
): Promise<T> {
  const claimed: Claim[] = [];
  try {
    for (const wanted of claims) {
      await claim(deps, ownerId, wanted, context, abandoned);
      claimed.push(wanted);
    }
    return await work();
  } catch (error) {
    for (const held of claimed) await release(deps, ownerId, held, context);
    throw error;
  }
}

/** A claim older than this whose holder never came to exist was left by a crash mid-creation. */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000;
