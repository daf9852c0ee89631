import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import jwt from 'jsonwebtoken';
import { Gauge } from 'prom-client';
import { type Socket, Server } from 'socket.io';
import { z } from 'zod';
import type { SessionEvent } from '../../domain/session/session';
import { DomainError, StartingError, UnauthorizedError } from '#contract/errors';
import type { UserEvent } from '../../domain/user/user';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import type { AppDeps } from '../../app/deps';
import { type AuthUser, authenticateToken, sessionUser } from '../http/auth';
import { corsOrigin } from '../http/guards';
import { maintenanceMessage } from '../../app/maintenance';
import { loadSystemSettings } from '../../projections/settings';
import { STARTING_RETRY_AFTER_SECONDS } from '../../app/startup';
import { roleRoom, sessionRoom, userRoom } from './rooms';
import { createLiveGuard, refusal } from './guard';
import { attachTicketChannel } from './tickets';
import { attachViewCounts } from './viewCounts';
import { AdapterConnection } from './adapterConnection';

/** How long a socket whose access token ran out has to present a fresh one (`reauth`). */
const REAUTH_GRACE_MS = 10_000;
const reauthPayload = z.object({ token: z.string().min(1).max(4096) });

/** When a verified access token runs out, in epoch milliseconds. */
const expiryOf = (token: string) => ((jwt.decode(token) as { exp: number }).exp ?? 0) * 1000;

/**
 * The live channel of docs/contract.md: same origin, authenticated with the access token at the handshake.
 * Every API process tails the log through its projection runner and acts on its own sockets only
 * (`io.local`), so the same code holds with one process or many behind the Redis adapter.
 */
export function createLiveServer(httpServer: HttpServer, deps: AppDeps): Server {
  const io = new Server(httpServer, { path: '/socket.io', serveClient: false, cors: { origin: corsOrigin(deps) } });
  new Gauge({
    name: 'desk_live_sockets',
    help: 'Live channel (socket.io) connections open on this process',
    registers: [deps.metrics.registry],
    collect() {
      this.set(io.of('/').sockets.size);
    },
  });
  // Several API processes: socket-to-socket messages (typing) cross processes through Redis.
  const { REDIS_URL, REDIS_PREFIX } = deps.config;
  const redis = REDIS_URL ? { pub: new AdapterConnection(REDIS_URL, deps.logger), sub: new AdapterConnection(REDIS_URL, deps.logger) } : null;
  if (redis) {
    for (const client of [redis.pub, redis.sub])
      client.on('error', (error: Error) => deps.logger.warn({ err: error }, 'socket.io redis adapter connection failed; retrying'));
    io.adapter(createAdapter(redis.pub, redis.sub, { key: `${REDIS_PREFIX}:socket.io` }));
  }
  const guard = createLiveGuard(io, {
    maxSocketsPerUser: deps.config.LIVE_MAX_SOCKETS_PER_USER,
    cooldownSeconds: deps.config.LIVE_COOLDOWN_SECONDS,
    limiters: deps.limiters,
    logger: deps.logger,
    redis: redis ? { client: redis.pub, prefix: REDIS_PREFIX } : null,
  });
  io.use(async (socket, next) => {
    // Sessions and users are read models: until they caught up a handshake could not be checked.
    if (!deps.startup.ready) return next(new StartingError(STARTING_RETRY_AFTER_SECONDS));
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== 'string' || token.length === 0) return next(new Error('Authentication required'));
    try {
      const user = await authenticateToken(deps, token);
      const settings = await loadSystemSettings(deps.readStore);
      if (settings.maintenanceMode && user.role !== 'admin') return next(refusal(maintenanceMessage(settings.systemName), 'MAINTENANCE'));
      const refused = await guard.admit(socket, user.id);
      if (refused) return next(refused);
      socket.data.user = user;
      socket.data.tokenExpiresAt = expiryOf(token);
      next();
    } catch (error) {
      next(error instanceof DomainError ? refusal(error.message, error.code) : refusal('Authentication failed', 'AUTHENTICATION_FAILED'));
    }
  });
  io.on('connection', async (socket) => {
    const user = socket.data.user as AuthUser;
    watchToken(socket);
    await socket.join([userRoom(user.id), roleRoom(user.role), sessionRoom(user.sessionId)]);
    // A session that ended between the handshake and the join was announced to an empty room.
    await checkSession(socket);
  });

  /** Ends the socket (told why) if its session is no longer on; true if it was. */
  async function checkSession(socket: Socket): Promise<boolean> {
    const user = socket.data.user as AuthUser;
    try {
      await sessionUser(deps, user.id, user.sessionId);
      return true;
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) {
        deps.logger.warn({ err: error }, 'live session check failed');
        return true;
      }
      socket.emit('session_ended', { reason: error.code === 'ACCOUNT_DEACTIVATED' ? 'account_deactivated' : 'session_ended' });
      socket.disconnect(true);
      return false;
    }
  }

  /**
   * A socket holds its access only as long as its token: when the token runs out, the session is
   * checked again as HTTP would check the next call (ended, deactivated: the socket ends), and the
   * client must present a fresh token within the grace time, or the socket is closed.
   */
  function watchToken(socket: Socket): void {
    let expiry: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const schedule = () => {
      clearTimeout(expiry);
      clearTimeout(grace);
      expiry = setTimeout(() => void expired(), Math.max(0, (socket.data.tokenExpiresAt as number) - Date.now()));
    };
    const expired = async () => {
      if (!(await checkSession(socket))) return;
      socket.emit('reauth_required');
      grace = setTimeout(() => {
        socket.emit('token_expired');
        socket.disconnect(true);
      }, REAUTH_GRACE_MS);
    };
    socket.on('reauth', async (payload: unknown, ack: unknown) => {
      const answer = typeof ack === 'function' ? (ack as (answer: object) => void) : () => undefined;
      const parsed = reauthPayload.safeParse(payload);
      if (!parsed.success) return answer({ ok: false, error: 'reauth needs {token}' });
      try {
        const user = await authenticateToken(deps, parsed.data.token);
        if (user.id !== (socket.data.user as AuthUser).id) return answer({ ok: false, error: 'That token belongs to someone else' });
        socket.data.user = user;
        socket.data.tokenExpiresAt = expiryOf(parsed.data.token);
        schedule();
        answer({ ok: true });
      } catch (error) {
        answer({ ok: false, error: error instanceof DomainError ? error.message : 'Authentication failed' });
      }
    });
    socket.on('disconnect', () => {
      clearTimeout(expiry);
      clearTimeout(grace);
    });
    schedule();
  }

  // Access already granted must end with the access itself: a socket does not outlive its session.
  const endLive = (room: string, reason: string) => {
    io.local.in(room).emit('session_ended', { reason });
    io.local.in(room).disconnectSockets(true);
  };
  const stopListening = deps.projections.onApplied((recorded: RecordedEvent) => {
    const event = recordedAs<UserEvent | SessionEvent>(recorded);
    switch (event.type) {
      case 'UserDeactivated':
        return endLive(userRoom(event.data.userId), 'account_deactivated');
      case 'UserDeleted':
        return endLive(userRoom(event.data.userId), 'account_deleted');
      case 'UserPasswordChanged':
        if (event.data.endsSessions) endLive(userRoom(event.data.userId), 'password_changed');
        return;
      case 'SessionEnded':
        return endLive(sessionRoom(event.data.sessionId), event.data.reason);
      case 'UserRoleChanged':
        // Rooms and permissions follow the new role from the next message on.
        for (const socket of io.of('/').sockets.values()) {
          const user = socket.data.user as AuthUser;
          if (user.id !== event.data.userId) continue;
          socket.data.user = { ...user, role: event.data.to };
          void socket.leave(roleRoom(event.data.from));
          void socket.join(roleRoom(event.data.to));
        }
        return;
    }
  });
  const stopTicketChannel = attachTicketChannel(io, deps, guard);
  const stopViewCounts = attachViewCounts(io, deps, guard);
  httpServer.once('close', () => {
    stopListening();
    stopTicketChannel();
    stopViewCounts();
    redis?.pub.disconnect();
    redis?.sub.disconnect();
  });
  return io;
}
