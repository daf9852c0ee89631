import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Server, Socket } from 'socket.io';
import type { RateLimiterFactory } from '../../platform/ratelimit';
import { userRoom } from './rooms';

/**
 * Per socket (a socket lives in one process, so memory): typing sends a refresh a second while keys
 * come, joins follow navigation. Ten times a human's pace is abuse.
 */
export const LIVE_LIMITS = {
  typing: { points: 30, duration: 10 },
  control: { points: 40, duration: 10 },
};

/**
 * Per user, over all of the user's sockets (and all API processes when REDIS_URL is set): without
 * these, N sockets would have N times the budget. Room for a person with many tabs, all reconnecting
 * and rejoining at once after a restart (20 tabs: 20 resyncs and their joins), not for a script.
 */
export const LIVE_USER_LIMITS = {
  typing: { points: 40, duration: 10 },
  /** `join_ticket`, `leave_ticket` and `presence_snapshot`. */
  join: { points: 120, duration: 10 },
  resync: { points: 30, duration: 10 },
};

export type LiveBudget = keyof typeof LIVE_USER_LIMITS;
const SOCKET_BUDGET: Record<LiveBudget, keyof typeof LIVE_LIMITS> = { typing: 'typing', join: 'control', resync: 'control' };

/** How long a refused socket of a user at the socket cap should wait before it tries again. */
const TOO_MANY_SOCKETS_RETRY_SECONDS = 30;

/** A refused handshake carries the error code (and when to retry) too, so a client can tell "refresh and retry" from "wait" and "sign in again". */
export function refusal(message: string, code: string, retryAfter?: number): Error {
  return Object.assign(new Error(message), { data: retryAfter === undefined ? { code } : { code, retryAfter } });
}

export interface LiveGuard {
  /**
   * The refusal for a new socket of this user (cooling down after a cut, or at the socket cap), or
   * null: then the socket is counted against the cap until it disconnects.
   */
  admit(socket: Socket, userId: string): Promise<Error | null>;
  /**
   * Spends one event of `budget` from the socket's and its user's budgets. False when either was
   * already spent: then every socket of the user has been told and cut off, and the user cools down.
   */
  spend(socket: Socket, userId: string, budget: LiveBudget): Promise<boolean>;
}

interface GuardOptions {
  maxSocketsPerUser: number;
  cooldownSeconds: number;
  limiters: RateLimiterFactory;
  logger: Logger;
  /** With several API processes, the cool-down is kept in Redis too, so no process lets the user back early. */
  redis: { client: Redis; prefix: string } | null;
}

/**
 * What one user may cost the live channel. The socket cap is per process (each process counts its own
 * sockets, which it alone can see disconnect, so a crash never leaves a count behind): with P
 * processes a user holds at most P times the cap. Per-user budgets and the cool-down are shared
 * through Redis when it is configured; a cut reaches the user's sockets on every process through the
 * socket.io adapter.
 */
export function createLiveGuard(io: Server, options: GuardOptions): LiveGuard {
  const { maxSocketsPerUser, cooldownSeconds, logger, redis } = options;
  const perSocket = {
    typing: new RateLimiterMemory({ keyPrefix: 'live-socket-typing', ...LIVE_LIMITS.typing }),
    control: new RateLimiterMemory({ keyPrefix: 'live-socket-control', ...LIVE_LIMITS.control }),
  };
  const perUser = {
    typing: options.limiters.create({ keyPrefix: 'live-user-typing', ...LIVE_USER_LIMITS.typing }),
    join: options.limiters.create({ keyPrefix: 'live-user-join', ...LIVE_USER_LIMITS.join }),
    resync: options.limiters.create({ keyPrefix: 'live-user-resync', ...LIVE_USER_LIMITS.resync }),
  };
  const admitted = new Map<string, Set<Socket>>();
  const coolingUntil = new Map<string, number>();
  const cooldownKey = (userId: string) => `${redis?.prefix}:live-cooldown:${userId}`;

  /** Milliseconds left of the user's cool-down (0: none). */
  async function coolingFor(userId: string): Promise<number> {
    const local = (coolingUntil.get(userId) ?? 0) - Date.now();
    if (local <= 0) coolingUntil.delete(userId);
    if (!redis) return Math.max(0, local);
    const shared = await redis.client.pttl(cooldownKey(userId)).catch((error: unknown) => {
      logger.warn({ err: error }, 'live cool-down could not be read from Redis; this process decides alone');
      return -2;
    });
    return Math.max(0, local, shared);
  }

  const cooldownMessage = (seconds: number) => `Too many live events from this account; live updates resume in ${seconds} s`;

  /**
   * Cuts every socket of the user off, each told once: the ones here directly (a socket may not be in
   * its user's room yet, and with the Redis adapter leaving a room is not immediate), the ones on other
   * processes through the adapter, on the first cut of a cool-down only.
   */
  function cut(socket: Socket, userId: string, budget: LiveBudget): void {
    const already = (coolingUntil.get(userId) ?? 0) > Date.now();
    const told = { error: cooldownMessage(cooldownSeconds), code: 'LIVE_COOLDOWN', retryAfter: cooldownSeconds };
    const tell = (target: Socket | undefined) => {
      if (!target?.connected || target.data.cutOff) return;
      target.data.cutOff = true;
      target.emit('live_error', told);
      target.disconnect(true);
    };
    const here = [...(io.of('/').adapter.rooms.get(userRoom(userId)) ?? [])];
    tell(socket);
    for (const socketId of here) tell(io.of('/').sockets.get(socketId));
    if (already) return;
    coolingUntil.set(userId, Date.now() + cooldownSeconds * 1000);
    redis?.client.set(cooldownKey(userId), '1', 'PX', cooldownSeconds * 1000).catch((error: unknown) => {
      logger.warn({ err: error }, 'live cool-down could not be written to Redis; only this process knows it');
    });
    logger.warn({ userId, budget }, 'live channel budget spent; every socket of the user is cut off and refused for the cool-down');
    const elsewhere = io.to(userRoom(userId)).except([socket.id, ...here]);
    elsewhere.emit('live_error', told);
    elsewhere.disconnectSockets(true);
  }

  /** True if the limiter refused (a store failure lets the event through: the per-socket budget still holds). */
  const refuses = (limiter: RateLimiterAbstract, key: string) =>
    limiter.consume(key).then(
      () => false,
      (rejection: unknown) => {
        if (!(rejection instanceof Error)) return true;
        logger.warn({ err: rejection }, 'live budget could not be counted');
        return false;
      },
    );

  return {
    async admit(socket, userId) {
      const left = await coolingFor(userId);
      if (left > 0) {
        const seconds = Math.ceil(left / 1000);
        return refusal(cooldownMessage(seconds), 'LIVE_COOLDOWN', seconds);
      }
      // Checked and counted in one step (no await between), so parallel handshakes cannot all pass.
      const mine = admitted.get(userId) ?? new Set<Socket>();
      if (mine.size >= maxSocketsPerUser)
        return refusal(
          `Too many live connections for this account (at most ${maxSocketsPerUser}); close another tab or window`,
          'TOO_MANY_CONNECTIONS',
          TOO_MANY_SOCKETS_RETRY_SECONDS,
        );
      mine.add(socket);
      admitted.set(userId, mine);
      const release = () => {
        mine.delete(socket);
        if (mine.size === 0 && admitted.get(userId) === mine) admitted.delete(userId);
      };
      socket.once('disconnect', release);
      // socket.io connects an admitted socket on the next tick, or drops it silently if its client left meanwhile.
      setImmediate(() => {
        if (!socket.connected) release();
      });
      return null;
    },
    async spend(socket, userId, budget) {
      const [socketOver, userOver] = await Promise.all([refuses(perSocket[SOCKET_BUDGET[budget]], socket.id), refuses(perUser[budget], userId)]);
      if (!socketOver && !userOver) return true;
      if (socket.connected) cut(socket, userId, budget);
      return false;
    },
  };
}
