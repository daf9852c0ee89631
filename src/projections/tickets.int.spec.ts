import { addCategory, addMember, openTicket } from '../../test/support/desk';
import { type TestServer, startTestServer } from '../../test/support/server';
import { MemoryReadStore } from '../platform/readstore/memory';
import { TransientStoreError } from '../platform/readstore/port';
import { allProjections } from './all';
import { slaProjection } from './sla';
import { compareCollection, replayInto } from './check';
import { directoryProjection } from './directory';
import { TICKETS, TICKET_MESSAGES, TICKET_READS, UPLOADS, ticketsProjection } from './tickets';
import { TICKET_STATS, loadTicketStats } from './ticketStats';

describe('Tickets read models', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const agent = await addMember(server, admin, 'agent');
    const category = await addCategory(server, admin);
    // Service levels (docs/sla.md): the tickets follow a policy, so the sla read model is compared too.
    const around = { firstResponse: 30, nextResponse: 60, resolution: 240 };
    const policy = { id: 'p', name: 'P', categoryId: null, calendarId: null, targets: { low: around, medium: around, high: around, urgent: around } };
    const sla = { calendars: [], defaultCalendarId: null, policies: [policy], pauseStatuses: ['pending_customer'], warnPercent: 80 };
    expect((await server.request('PUT', '/api/sla/settings', { token: admin, body: sla })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const customer = await addMember(server, admin, 'customer');
      const ticket = await openTicket(server, customer, category);
      await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: customer.token, body: { content: 'Hello' } });
      await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
      await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'Note', isInternal: true } });
      await server.request('POST', `/api/tickets/${ticket._id}/messages/read`, { token: agent.token });
      if (i === 1) await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'resolved' } });
      if (i === 2) await server.request('DELETE', `/api/tickets/${ticket._id}`, { token: admin });
    }
  });
  afterAll(() => server.stop());

  const snapshot = async (store: MemoryReadStore) =>
    Object.fromEntries(
      await Promise.all(
        [TICKETS, TICKET_MESSAGES, TICKET_READS, UPLOADS, TICKET_STATS].map(async (name) => [
          name,
          await store.collection(name).find({}, { sort: { _id: 1 } }),
        ]),
      ),
    );

  const builtFromLog = async () => {
    const store = new MemoryReadStore();
    await ticketsProjection.setup?.(store);
    const log = await server.deps.events.readAll();
    for (const event of log) {
      await directoryProjection.apply(event, store);
      await ticketsProjection.apply(event, store);
    }
    return { store, log };
  };

  it('when every event is applied twice, then the read models are the same as after once', async () => {
    const { store, log } = await builtFromLog();
    const once = await snapshot(store);
    expect(once[TICKETS]).toHaveLength(2);
    for (const event of log) await ticketsProjection.apply(event, store);
    expect(await snapshot(store)).toEqual(once);
  });

  it('when every event is applied twice to the sla read model, then it is the same as after once', async () => {
    const store = new MemoryReadStore();
    const log = await server.deps.events.readAll();
    for (const event of log) await slaProjection.apply(event, store);
    const once = await Promise.all(slaProjection.collections.map((name) => store.collection(name).find({}, { sort: { _id: 1 } })));
    expect(once[0]).toHaveLength(2);
    for (const event of log) await slaProjection.apply(event, store);
    expect(await Promise.all(slaProjection.collections.map((name) => store.collection(name).find({}, { sort: { _id: 1 } })))).toEqual(once);
  });

  it('when events are applied again after the ticket documents were lost, then the statistics move only once', async () => {
    const { store, log } = await builtFromLog();
    const sums = await loadTicketStats(store);
    expect(Object.values(sums.byStatus).reduce((total, n) => total + (n ?? 0), 0)).toBe(2);
    // The tickets' revision guards cannot help now: only the sums' own position guard stops a second $inc.
    await store.collection(TICKETS).deleteMany({});
    for (const event of log) await ticketsProjection.apply(event, store);
    expect(await loadTicketStats(store)).toEqual(sums);
  });

  it('when the log is applied a page at a time, then every read model equals the one applied an event at a time', async () => {
    const events = server.deps.events;
    const paged = new MemoryReadStore();
    const head = await events.headPosition();
    await replayInto(events, allProjections, paged, head);
    const single = new MemoryReadStore();
    for (const projection of allProjections) await projection.setup?.(single);
    for (const event of await events.readAll()) for (const projection of allProjections) await projection.apply(event, single);
    for (const name of allProjections.flatMap((projection) => projection.collections)) {
      const report = await compareCollection(name, single, paged);
      expect({ name, missing: report.missing.count, extra: report.extra.count, different: report.different.documents }).toEqual({
        name,
        missing: 0,
        extra: 0,
        different: [],
      });
    }
  });

  it('when built from the log alone, then they equal what the running server holds', async () => {
    const store = new MemoryReadStore();
    await ticketsProjection.setup?.(store);
    for (const event of await server.deps.events.readAll()) {
      await directoryProjection.apply(event, store);
      await ticketsProjection.apply(event, store);
    }
    const live = server.deps.readStore as MemoryReadStore;
    expect(await snapshot(store)).toEqual(await snapshot(live));
  });

  it('when another writer moves a ticket on while a page is applied, then its guarded write fails the page instead of dropping it, and the retry is whole', async () => {
    const { store: whole, log } = await builtFromLog();
    const store = new MemoryReadStore();
    await ticketsProjection.setup?.(store);
    for (const event of log) await directoryProjection.apply(event, store);
    const split = log.findIndex((event) => event.type === 'MessagePosted');
    await ticketsProjection.applyPage!(log.slice(0, split), store);
    const rest = log.slice(split);
    // A writer that lost its lease, mid-page: it stores the ticket one event on before this page's write of it.
    let other: (() => Promise<void>) | null = () => ticketsProjection.applyPage!([rest[0]!], store);
    const racing = Object.assign(Object.create(store) as MemoryReadStore, {
      collection: (name: string) => {
        const collection = store.collection(name);
        if (name !== TICKETS) return collection;
        return Object.assign(Object.create(collection) as typeof collection, {
          bulkWrite: async (ops: Parameters<typeof collection.bulkWrite>[0]) => {
            const first = other;
            other = null;
            await first?.();
            return collection.bulkWrite(ops);
          },
        });
      },
    });
    await expect(ticketsProjection.applyPage!(rest, racing)).rejects.toBeInstanceOf(TransientStoreError);
    await ticketsProjection.applyPage!(rest, store);
    expect(await snapshot(store)).toEqual(await snapshot(whole));
  });
});
