import { createHash } from 'node:crypto';
import { readYourWrites } from './commands';
import { ConflictError, NotFoundError, UnprocessableError } from '#contract/errors';
import { type CommandContext, metadataOf } from '../platform/commands';
import { isWrongExpectedVersion } from '../platform/eventstore/port';
import { nameBasedId } from '../platform/ids';
import type { AppDeps } from './deps';

/**
 * `Idempotency-Key` on a request that creates something: a retry with the same key (after a
 * timeout, a lost answer, a dropped connection) answers what the first one created and appends
 * nothing; the same key with another request is refused (422). Each key has a stream of its own,
 * `idempotency-<hash of caller and key>`, recording the request's fingerprint and what it created;
 * the ids of what it creates are derived from the key, so a retry that comes before that record
 * (the first still running, or stopped by a crash just before recording) finds them instead of
 * creating a second copy.
 */
export interface IdempotencyKey {
  /** Who sent it: keys of different callers never meet. */
  caller: string;
  key: string;
  /** What the request asked: method, route and a digest of its body and files. */
  fingerprint: string;
}

const IDEMPOTENCY_KEY_USED = 'IdempotencyKeyUsed';

const streamOf = ({ caller, key }: IdempotencyKey) => `idempotency-${createHash('sha256').update(`${caller}\u0000${key}`).digest('hex').slice(0, 40)}`;

/** The id of the `purpose` (ticket, message, user…) that a request with this key creates. */
export const idOfKey = (key: IdempotencyKey, purpose: string) => nameBasedId(`${streamOf(key)}/${purpose}`);

/** A stable digest of a request: key order in JSON bodies does not matter. */
export function fingerprintOf(method: string, route: string, body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify([method, route, canonical(body ?? null)]))
    .digest('hex');
}

export interface Creation<Created> {
  /** Does the thing, with the ids derived from the key when there is one. */
  create(): Promise<Created>;
  idOf(created: Created): string;
  /** The created thing read back, for a retry; null (or NotFoundError) once it has been deleted. */
  answer(createdId: string): Promise<Created | null>;
  /** What an earlier run with this key created before it could record it (found by the derived id). */
  earlier(): Promise<string | null>;
}

/**
 * Runs `creation` once per key. Without a key it simply runs. A retry reads the record and answers
 * the same thing; a different request under the same key is refused.
 */
export async function once<Created>(
  deps: Pick<AppDeps, 'events' | 'projections'>,
  key: IdempotencyKey | null,
  context: CommandContext,
  creation: Creation<Created>,
): Promise<Created> {
  if (!key) return creation.create();
  const stream = streamOf(key);
  const replay = async (): Promise<Created | null> => {
    const [recorded] = await deps.events.readStream(stream, { maxCount: 1 });
    if (!recorded) return null;
    if (recorded.data.fingerprint !== key.fingerprint) throw new UnprocessableError(REUSED, 'IDEMPOTENCY_KEY_REUSED');
    // Recorded after what it created, so once the read models reach the record they show it.
    await readYourWrites(deps, recorded.position);
    return answerOrGone(creation, String(recorded.data.createdId));
  };
  const replayed = await replay();
  if (replayed) return replayed;
  const earlier = await creation.earlier();
  const created = earlier ? await answerOrGone(creation, earlier) : await createOrFindTwin(creation);
  try {
    const data = { fingerprint: key.fingerprint, createdId: creation.idOf(created) };
    await deps.events.append(stream, [{ type: IDEMPOTENCY_KEY_USED, data, metadata: metadataOf(context) }], 'no_stream');
  } catch (error) {
    // A twin request with this key recorded first: the same ids were created, unless it asked something else.
    if (!isWrongExpectedVersion(error)) throw error;
    return (await replay())!;
  }
  return created;
}

/**
 * For `earlier`: `id` when its stream exists (an earlier run created it), once the read models show
 * its last event; null when nothing was created yet.
 */
export async function createdIn(deps: Pick<AppDeps, 'events' | 'projections'>, streamId: string, id: string): Promise<string | null> {
  const [last] = await deps.events.readStream(streamId, { direction: 'backwards', maxCount: 1 });
  if (!last) return null;
  await readYourWrites(deps, last.position);
  return id;
}

/** Creates; when that fails because a twin with the same key (the same derived ids) created it first, answers the twin's. */
async function createOrFindTwin<Created>(creation: Creation<Created>): Promise<Created> {
  try {
    return await creation.create();
  } catch (error) {
    const twin = await creation.earlier();
    if (!twin) throw error;
    return answerOrGone(creation, twin);
  }
}

/**
 * What the key created, read back. Deleted since, it cannot be shown again, and creating it anew
 * would break the key's promise: the retry is told so (409 IDEMPOTENCY_KEY_TARGET_DELETED).
 */
async function answerOrGone<Created>(creation: Creation<Created>, createdId: string): Promise<Created> {
  let found: Created | null;
  try {
    found = await creation.answer(createdId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    found = null;
  }
  if (found === null || found === undefined) throw new ConflictError(TARGET_DELETED, 'IDEMPOTENCY_KEY_TARGET_DELETED');
  return found;
}

const TARGET_DELETED = 'What this Idempotency-Key created has since been deleted; send a new key to create it again';

const REUSED = 'This Idempotency-Key was already used for a different request; send a new key for a new request';
