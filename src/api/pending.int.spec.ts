import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addCategory, addMember, openTicket } from '../../test/support/desk';
import { type TestServer, startTestServer } from '../../test/support/server';
import type { EventStore, SubscribeOptions } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';

/** The log, with live delivery to the read models held while `hold()` is on: views that fall behind. */
class HeldDelivery implements EventStore {
  readonly kind: EventStore['kind'];
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;
  constructor(private readonly inner: EventStore) {
    this.kind = inner.kind;
  }
  hold() {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release() {
    this.gate = null;
    this.open();
  }
  append: EventStore['append'] = (...args) => this.inner.append(...args);
  readStream: EventStore['readStream'] = (...args) => this.inner.readStream(...args);
  readAll: EventStore['readAll'] = (...args) => this.inner.readAll(...args);
  headPosition = () => this.inner.headPosition();
  close = () => this.inner.close();
  subscribeToAll = (options: SubscribeOptions) =>
    this.inner.subscribeToAll({
      ...options,
      onEvent: async (event) => {
        if (this.gate) await this.gate;
        return options.onEvent(event);
      },
    });
}

/**
 * Read-your-writes when the read models lag past the wait: the answer is 202 with the log position
 * and Retry-After, never a 404 or the state from before the change; once they catch up it shows.
 */
describe('A change the read models do not show within the wait', () => {
  let server: TestServer;
  let held: HeldDelivery;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-pending-'));
    held = new HeldDelivery(new SqliteEventStore({ filename: path.join(dataDir, 'events.db') }));
    server = await startTestServer({ dataDir, events: held });
  });
  afterAll(() => server.stop());

  it('when a ticket is opened and its status changed while the views are held, then both answer 202, and show once they catch up', async () => {
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const customer = await addMember(server, admin, 'customer');
    const agent = await addMember(server, admin, 'agent');
    const ticket = await openTicket(server, customer, category);

    held.hold();
    const changed = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'in_progress' } });
    expect(changed).toMatchObject({ status: 202, body: { code: 'ACCEPTED_PENDING', position: expect.any(Number) } });
    expect(changed.headers.get('retry-after')).toBe('1');
    const opened = await server.request('POST', '/api/canned-messages', { token: agent.token, body: { shortcode: 'pending', title: 't', content: 'c' } });
    expect(opened).toMatchObject({ status: 202, body: { code: 'ACCEPTED_PENDING' } });

    held.release();
    await server.deps.projections.waitFor(opened.body.position);
    expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: agent.token })).body.ticket.status).toBe('in_progress');
    const { cannedMessages } = (await server.request('GET', '/api/canned-messages', { token: agent.token })).body;
    expect(cannedMessages.map((message: { shortcode: string }) => message.shortcode)).toContain('pending');
  }, 60_000);
});
