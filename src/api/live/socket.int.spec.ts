import jwt from 'jsonwebtoken';
import { type Socket, io } from 'socket.io-client';
import { type TestServer, startTestServer } from '../../../test/support/server';

/** Connects a real socket.io client; resolves with the socket once connected or the handshake error. */
function connect(url: string, token?: string): Promise<{ socket: Socket; error: Error | null }> {
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: token === undefined ? {} : { token } });
  return new Promise((resolve) => {
    socket.once('connect', () => resolve({ socket, error: null }));
    socket.once('connect_error', (error) => resolve({ socket, error }));
  });
}

const until = <T>(socket: Socket, event: string) => new Promise<T>((resolve) => socket.once(event, resolve));

describe('Live channel handshake', () => {
  let server: TestServer;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterEach(() => sockets.splice(0).forEach((socket) => socket.disconnect()));
  afterAll(() => server.stop());

  const open = async (token?: string) => {
    const result = await connect(server.url, token);
    sockets.push(result.socket);
    return result;
  };

  it('when the access token is valid, then the socket connects', async () => {
    const { error, socket } = await open(await server.login());
    expect(error).toBeNull();
    expect(socket.connected).toBe(true);
  });

  it('when the token is missing, forged, expired or revoked, then the handshake is refused with the reason', async () => {
    expect((await open()).error?.message).toBe('Authentication required');
    expect((await open('not-a-token')).error?.message).toBe('Invalid token');
    const session = await server.signIn();
    const { sid, sub } = jwt.decode(session.accessToken) as { sid: string; sub: string };
    const expired = jwt.sign({ typ: 'access', sid }, server.deps.jwtSecret, { algorithm: 'HS256', subject: sub, issuer: 'support-desk', audience: 'support-desk-api', expiresIn: -5 });
    expect((await open(expired)).error?.message).toBe('Your session has expired');
    await server.request('POST', '/api/auth/logout', { token: session.accessToken });
    expect((await open(session.accessToken)).error?.message).toBe('Your session has ended; please sign in again');
  });

  it('when the session ends or the account is deactivated, then a connected socket is told and cut off at once', async () => {
    const admin = await server.login();
    const created = await server.request('POST', '/api/users', {
      token: admin,
      body: { firstName: 'Live', lastName: 'Agent', username: 'live_agent', email: 'live@example.com', password: 'secret-123', role: 'agent' },
    });
    const first = await server.signIn('live@example.com', 'secret-123');
    const second = await server.signIn('live@example.com', 'secret-123');
    const { socket: loggedOut } = await open(first.accessToken);
    const { socket: deactivated } = await open(second.accessToken);

    const ended = until<{ reason: string }>(loggedOut, 'session_ended');
    const cut = until<string>(loggedOut, 'disconnect');
    await server.request('POST', '/api/auth/logout', { token: first.accessToken });
    expect(await ended).toEqual({ reason: 'logout' });
    expect(await cut).toBe('io server disconnect');
    expect(deactivated.connected).toBe(true);

    const told = until<{ reason: string }>(deactivated, 'session_ended');
    const gone = until<string>(deactivated, 'disconnect');
    await server.request('PUT', `/api/users/${created.body.user._id}`, { token: admin, body: { isActive: false } });
    expect(await told).toEqual({ reason: 'account_deactivated' });
    expect(await gone).toBe('io server disconnect');
  });
});
