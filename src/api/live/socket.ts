import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import { DomainError } from '../../domain/shared/errors';
import type { AppDeps } from '../deps';
import { authenticateToken } from '../http/auth';

/** The live channel of API.md: same origin, authenticated with the access token at the handshake. */
export function createLiveServer(httpServer: HttpServer, deps: AppDeps): Server {
  const io = new Server(httpServer, { path: '/socket.io', serveClient: false });
  io.use(async (socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== 'string' || token.length === 0) return next(new Error('Authentication required'));
    try {
      socket.data.user = await authenticateToken(deps, token);
      next();
    } catch (error) {
      next(new Error(error instanceof DomainError ? error.message : 'Authentication failed'));
    }
  });
  io.on('connection', (socket) => {
    const user = socket.data.user as { id: string; role: string };
    void socket.join([`user:${user.id}`, `role:${user.role}`]);
  });
  return io;
}
