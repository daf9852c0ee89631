import jwt from 'jsonwebtoken';
import { type Socket, io } from 'socket.io-client';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { LiveClient } from '../../../test/support/liveClient';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { requestCaches } from '../../app/caches';
import { SESSIONS } from '../../projections/sessions';
import { LIVE_LIMITS } from './guard';

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
    const expired = jwt.sign({ typ: 'access', sid }, server.deps.jwtSecret, {
      algorithm: 'HS256',
      subject: sub,
      issuer: 'support-desk',
      audience: 'support-desk-api',
      expiresIn: -5,
    });
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

  /** An access token of the given session that runs out in `seconds`, as the server would sign it. */
  const shortToken = (accessToken: string, seconds: number) => {
    const { sid, sub, role } = jwt.decode(accessToken) as { sid: string; sub: string; role: string };
    return jwt.sign({ typ: 'access', sid, role }, server.deps.jwtSecret, {
      algorithm: 'HS256',
      subject: sub,
      issuer: 'support-desk',
      audience: 'support-desk-api',
      expiresIn: seconds,
    });
  };

  it('when the access token runs out, then the socket must present a fresh one: with it the socket stays, without it the socket is closed', async () => {
    const session = await server.signIn();
    const { socket: renewing } = await open(shortToken(session.accessToken, 2));
    const { socket: silent } = await open(shortToken(session.accessToken, 2));
    sockets.push(renewing, silent);
    await until(renewing, 'reauth_required');
    expect(await renewing.timeout(10_000).emitWithAck('reauth', { token: 'forged' })).toEqual({ ok: false, error: 'Invalid token' });
    expect(await renewing.timeout(10_000).emitWithAck('reauth', { token: session.accessToken })).toEqual({ ok: true });
    const told = until(silent, 'token_expired');
    expect(await until<string>(silent, 'disconnect')).toBe('io server disconnect');
    await told;
    expect(renewing.connected).toBe(true);
  }, 30_000);

  it('when the session was ended without the socket being told, then the check at token expiry ends the socket', async () => {
    const session = await server.signIn();
    const { socket } = await open(shortToken(session.accessToken, 2));
    // Stands in for a SessionEnded push the socket missed (it was still joining its rooms when the
    // push went out): the read model says ended, no live event says so.
    const { sid } = jwt.decode(session.accessToken) as { sid: string };
    await server.deps.readStore.collection(SESSIONS).updateOne({ _id: sid }, { $set: { endedAt: new Date().toISOString() } });
    // What applying the missed event does to this process's request caches (src/app/caches.ts).
    requestCaches(server.deps).forget({ sessionId: sid });
    const ended = until<{ reason: string }>(socket, 'session_ended');
    expect(await until<string>(socket, 'disconnect')).toBe('io server disconnect');
    expect(await ended).toEqual({ reason: 'session_ended' });
  }, 30_000);

  it('when a socket floods typing or join events, then it alone is disconnected and the others are not slowed', async () => {
    const admin = await server.login();
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, await addCategory(server, admin));
    const agent = await addMember(server, admin, 'agent');
    const [abuser, customer, staff] = await Promise.all([
      LiveClient.connect(server.url, agent.token),
      LiveClient.connect(server.url, owner.token),
      LiveClient.connect(server.url, admin),
    ]);
    sockets.push(abuser.socket, customer.socket, staff.socket);
    await Promise.all([abuser.join(ticket._id), customer.join(ticket._id), staff.join(ticket._id)]);

    const cut = until<string>(abuser.socket, 'disconnect');
    for (let i = 0; i < LIVE_LIMITS.typing.points * 3; i++) abuser.socket.emit('typing', { ticketId: ticket._id, isTyping: i % 2 === 0 });
    expect(await cut).toBe('io server disconnect');
    expect(abuser.events('live_error')).toEqual([
      { error: 'Too many live events from this account; live updates resume in 60 s', code: 'LIVE_COOLDOWN', retryAfter: 60 },
    ]);
    const typed = Date.now();
    customer.socket.emit('typing', { ticketId: ticket._id, isTyping: true });
    expect((await staff.next('user_typing', (p) => p.userId === owner.id, 10_000)).isTyping).toBe(true);
    const latency = Date.now() - typed;
    process.stdout.write(`typing latency for a well-behaved socket after a flood: ${latency} ms\n`);

    // The cut abuser cools down (abuse.int.spec.ts): the join flood comes from someone else.
    const joiner = await LiveClient.connect(server.url, (await addMember(server, admin, 'agent')).token);
    sockets.push(joiner.socket);
    const joinCut = until<string>(joiner.socket, 'disconnect');
    for (let i = 0; i < LIVE_LIMITS.control.points * 2; i++) joiner.socket.emit('join_ticket', ticket._id);
    expect(await joinCut).toBe('io server disconnect');
    expect(customer.socket.connected && staff.socket.connected).toBe(true);
  }, 30_000);
});
