import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import IORedis from 'ioredis';
import { Server } from 'socket.io';
import type { SessionEvent } from '../../domain/session/session';
import { DomainError, StartingError } from '../../domain/shared/errors';
import type { UserEvent } from '../../domain/user/user';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { AppDeps } from '../deps';
import { type AuthUser, authenticateToken } from '../http/auth';
import { corsOrigin, maintenanceMessage } from '../http/guards';
import { loadSystemSettings } from '../../projections/settings';
import { STARTING_RETRY_AFTER_SECONDS } from '../startup';
import { attachTicketChannel } from './tickets';

const userRoom = (userId: string) => `user:${userId}`;
const roleRoom = (role: string) => `role:${role}`;
const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/**
 * The live channel of API.md: same origin, authenticated with the access token at the handshake.
 * Every API process tails the log through its projection runner and acts on its own sockets only
 * (`io.local`), so the same code holds with one process or many behind the Redis adapter.
 */
export function createLiveServer(httpServer: HttpServer, deps: AppDeps): Server {
  const io = new Server(httpServer, { path: '/socket.io', serveClient: false, cors: { origin: corsOrigin(deps) } });
  // Several API processes: socket-to-socket messages (typing) cross processes through Redis.
  const { REDIS_URL, REDIS_PREFIX } = deps.config;
  const redis = REDIS_URL ? { pub: new IORedis(REDIS_URL), sub: new IORedis(REDIS_URL) } : null;
  if (redis) {
    for (const client of [redis.pub, redis.sub]) client.on('error', (error: Error) => deps.logger.warn({ err: error }, 'socket.io redis adapter connection failed; retrying'));
    io.adapter(createAdapter(redis.pub, redis.sub, { key: `${REDIS_PREFIX}:socket.io` }));
  }
  io.use(async (socket, next) => {
    // Sessions and users are read models: until they caught up a handshake could not be checked.
    if (!deps.startup.ready) return next(new StartingError(STARTING_RETRY_AFTER_SECONDS));
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== 'string' || token.length === 0) return next(new Error('Authentication required'));
    try {
      const user = await authenticateToken(deps, token);
      const settings = await loadSystemSettings(deps.readStore);
      if (settings.maintenanceMode && user.role !== 'admin') return next(new Error(maintenanceMessage(settings.systemName)));
      socket.data.user = user;
      next();
    } catch (error) {
      next(new Error(error instanceof DomainError ? error.message : 'Authentication failed'));
    }
  });
  io.on('connection', (socket) => {
    const user = socket.data.user as AuthUser;
    void socket.join([userRoom(user.id), roleRoom(user.role), sessionRoom(user.sessionId)]);
  });

  // Access already granted must end with the access itself: a socket does not outlive its session.
  const endLive = (room: string, reason: string) => {
    io.local.in(room).emit('session_ended', { reason });
    io.local.in(room).disconnectSockets(true);
  };
  const stopListening = deps.projections.onApplied((recorded: RecordedEvent) => {
    const event = recorded as unknown as RecordedEvent & (UserEvent | SessionEvent);
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
  const stopTicketChannel = attachTicketChannel(io, deps);
  httpServer.once('close', () => {
    stopListening();
    stopTicketChannel();
    redis?.pub.disconnect();
    redis?.sub.disconnect();
  });
  return io;
}
