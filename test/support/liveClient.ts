import { type Socket, io } from 'socket.io-client';
import { type Member, addCategory, addMember } from './desk';
import { type TestServer, startTestServer } from './server';
import type { EventStore } from '../../src/platform/eventstore/port';

export interface Received {
  event: string;
  payload: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions read arbitrary payloads
}

/** A real socket.io client that records everything the server sends it. */
export class LiveClient {
  readonly received: Received[] = [];
  constructor(readonly socket: Socket) {
    socket.onAny((event: string, payload: Record<string, unknown>) => this.received.push({ event, payload }));
  }
  static async connect(url: string, token: string): Promise<LiveClient> {
    const socket = io(url, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: { token } });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return new LiveClient(socket);
  }
  join(ticketId: string): Promise<{ ok: boolean; error?: string }> {
    return this.socket.timeout(2000).emitWithAck('join_ticket', ticketId);
  }
  events(name: string) {
    return this.received.filter((r) => r.event === name).map((r) => r.payload);
  }
  /** Resolves with the first matching event, waiting for it if it has not come yet. */
  next(name: string, where: (payload: Received['payload']) => boolean = () => true, timeoutMs = 2000): Promise<Received['payload']> {
    const seen = this.events(name).find(where);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${name} within ${timeoutMs} ms`)), timeoutMs);
      const listener = (event: string, payload: Received['payload']) => {
        if (event !== name || !where(payload)) return;
        clearTimeout(timer);
        this.socket.offAny(listener);
        resolve(payload);
      };
      this.socket.onAny(listener);
    });
  }
}

/**
 * A live-channel suite's desk: a real server with an admin, one agent (Alice) and a category, and
 * `connect` for real clients that are all disconnected after each test. Registers its own hooks.
 */
export function liveDesk(options: { events?: () => EventStore } = {}) {
  const desk = {} as { server: TestServer; admin: string; agent: Member; category: string };
  const clients: LiveClient[] = [];
  beforeAll(async () => {
    desk.server = await startTestServer(options.events ? { events: options.events() } : {});
    desk.admin = await desk.server.login();
    desk.agent = await addMember(desk.server, desk.admin, 'agent', 'Alice');
    desk.category = await addCategory(desk.server, desk.admin);
    // Start-up hashes passwords and replays the log: seconds on a loaded machine.
  }, 30_000);
  afterEach(() => clients.splice(0).forEach((client) => client.socket.disconnect()));
  afterAll(() => desk.server.stop(), 30_000);
  const connect = async (token: string) => {
    const client = await LiveClient.connect(desk.server.url, token);
    clients.push(client);
    return client;
  };
  return Object.assign(desk, { connect });
}
