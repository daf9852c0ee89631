import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { searchProjection } from '../../projections/search';

/** Runs on the embedded read store (int tier) and on MongoDB / FerretDB (mongo tier). */
describe('Full-text search over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let carol: Member;
  let dave: Member;
  let category: string;
  let carolTicket: { _id: string; ticketId: number };
  let daveTicket: { _id: string; ticketId: number };
  let refundMessage: string;

  const search = (token: string, query: Record<string, string>) => server.request('GET', `/api/search?${new URLSearchParams(query)}`, { token });
  const post = async (token: string, ticket: string, content: string, isInternal = false) => {
    const answer = await server.request('POST', `/api/tickets/${ticket}/messages`, { token, body: { content, isInternal } });
    expect(answer.status).toBe(201);
    return answer.body.message._id as string;
  };
  const numbers = (body: { hits: Array<{ ticket: { ticketId: number } }> }) => body.hits.map(({ ticket }) => ticket.ticketId);
  /** The projection follows the log right behind the tickets read model: a write is searchable within a second. */
  const found = (token: string, query: Record<string, string>, expected: number[]) =>
    eventually(
      async () => {
        const { body } = await search(token, query);
        return JSON.stringify(numbers(body).sort()) === JSON.stringify([...expected].sort()) && body;
      },
      { timeoutMs: 1000, describe: `search ${JSON.stringify(query)} finding ${expected.join(', ')}` },
    );

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
    dave = await addMember(server, admin, 'customer', 'Dave');
    category = await addCategory(server, admin, { name: 'Billing' });
    carolTicket = await openTicket(server, carol, category, { title: 'Charged twice for my order', description: 'My card was charged two times.' });
    refundMessage = await post(carol.token, carolTicket._id, 'Could you please REFUND the second payment? The café receipt is attached.');
    await post(agent.token, carolTicket._id, 'Internal: suspect fraudulent chargeback, escalate to Zoltan', true);
    daveTicket = await openTicket(server, dave, category, { title: 'Delivery late', description: 'The parcel never arrived.' });
    await post(dave.token, daveTicket._id, 'I want a refund because the parcel is lost in transit.');
  });
  afterAll(() => server.stop());

  it('when staff search a word prefix in any case or accent, then the ticket comes with a snippet of the message and the word highlighted', async () => {
    const body = await found(agent.token, { q: 'refun' }, [carolTicket.ticketId, daveTicket.ticketId]);
    const hit = body.hits.find(({ ticket }: { ticket: { _id: string } }) => ticket._id === carolTicket._id);
    expect(hit.snippet).toMatchObject({ source: 'message', messageId: refundMessage, seq: 1 });
    const [[start, end]] = hit.snippet.highlights;
    expect(hit.snippet.text.slice(start, end)).toBe('REFUND');
    expect(hit.ticket).toMatchObject({ ticketId: carolTicket.ticketId, title: 'Charged twice for my order', status: 'open' });
    await found(agent.token, { q: 'CAFE' }, [carolTicket.ticketId]);
    await found(agent.token, { q: 'Zoltán' }, [carolTicket.ticketId]);
  });

  it('when staff search words of a ticket, then the title, description, number and customer name find it too', async () => {
    await found(agent.token, { q: 'charged twice' }, [carolTicket.ticketId]);
    await found(agent.token, { q: `#${carolTicket.ticketId}` }, [carolTicket.ticketId]);
    await found(agent.token, { q: 'carol refund' }, [carolTicket.ticketId]);
    await found(agent.token, { q: 'parcel arrived' }, [daveTicket.ticketId]);
  });

  it('when a customer searches, then only their own tickets and what they can see match, and counts show nothing else', async () => {
    // "refund" is in both customers' tickets: each finds only their own, counted alone.
    const mine = await found(carol.token, { q: 'refund' }, [carolTicket.ticketId]);
    expect(mine.pagination.total).toBe(1);
    await found(dave.token, { q: 'refund' }, [daveTicket.ticketId]);
    // Words of the internal note find nothing for the customer, alone or with a word they can see.
    for (const q of ['fraudulent', 'chargeback refund', 'zoltan', 'escalat']) {
      const { status, body } = await search(carol.token, { q });
      expect({ q, status, total: body.pagination.total, hits: body.hits }).toEqual({ q, status: 200, total: 0, hits: [] });
    }
    // Nor can another customer's words or ticket number.
    for (const q of ['parcel', String(daveTicket.ticketId), 'dave']) expect((await search(carol.token, { q })).body.pagination.total).toBe(0);
    // The snippet a customer gets never comes from a note, even when the note matches better.
    await post(agent.token, carolTicket._id, 'receipt receipt receipt internal review of the receipt', true);
    await found(agent.token, { q: 'review' }, [carolTicket.ticketId]);
    const { body } = await search(carol.token, { q: 'receipt' });
    expect(body.hits[0].snippet.messageId).toBe(refundMessage);
  });

  it('when a query uses a phrase, an exclusion or a filter, then only tickets meeting all of them match', async () => {
    await found(agent.token, { q: '"second payment"' }, [carolTicket.ticketId]);
    await found(agent.token, { q: '"payment second"' }, []);
    await found(agent.token, { q: 'refund -parcel' }, [carolTicket.ticketId]);
    const resolved = await server.request('PUT', `/api/tickets/${daveTicket._id}`, { token: agent.token, body: { status: 'resolved' } });
    expect(resolved.status).toBe(200);
    await found(agent.token, { q: 'refund', status: 'resolved' }, [daveTicket.ticketId]);
    await found(agent.token, { q: 'refund', status: 'open,in_progress' }, [carolTicket.ticketId]);
    await found(agent.token, { q: 'refund', createdFrom: '2000-01-01', createdTo: '2000-12-31' }, []);
    // A date alone is its whole day (UTC): to today takes in what was opened today.
    const today = new Date().toISOString().slice(0, 10);
    await found(agent.token, { q: 'refund', createdFrom: today, createdTo: today }, [carolTicket.ticketId, daveTicket.ticketId]);
    await found(agent.token, { q: 'refund', updatedTo: today, status: 'resolved' }, [daveTicket.ticketId]);
  });

  it('when a message is edited or a ticket deleted, then search follows at once', async () => {
    const message = await post(dave.token, daveTicket._id, 'Tracking number is banana');
    await found(dave.token, { q: 'banana' }, [daveTicket.ticketId]);
    const edited = await server.request('PUT', `/api/messages/${message}`, { token: dave.token, body: { content: 'Tracking number is mango' } });
    expect(edited.status).toBe(200);
    await found(dave.token, { q: 'mango' }, [daveTicket.ticketId]);
    await found(dave.token, { q: 'banana' }, []);
    const erin = await addMember(server, admin, 'customer', 'Erin');
    const extra = await openTicket(server, erin, category, { title: 'Throwaway ticket about pineapples' });
    await found(agent.token, { q: 'pineapple' }, [extra.ticketId]);
    expect((await server.request('DELETE', `/api/tickets/${extra._id}`, { token: admin })).status).toBe(204);
    expect(numbers((await search(agent.token, { q: 'pineapple' })).body)).toEqual([]);
  });

  it('when several tickets match, then the more relevant comes first, an older ticket before a newer one', async () => {
    const frank = await addMember(server, admin, 'customer', 'Frank');
    const newer = await openTicket(server, frank, category, { title: 'Question about my account' });
    await post(frank.token, newer._id, 'Was I charged for this month already?');
    // Carol's older ticket holds the word in its title and its description; Frank's newer one in one message.
    for (const q of ['charged', 'charg'])
      expect(numbers(await found(agent.token, { q }, [carolTicket.ticketId, newer.ticketId]))).toEqual([carolTicket.ticketId, newer.ticketId]);
  });

  it('when the input is bad, then the answer is a 400 saying why; a long query is cut, not refused', async () => {
    expect(await search(agent.token, {})).toMatchObject({ status: 400, body: { error: expect.stringContaining('q') } });
    expect(await search(agent.token, { q: 'x', status: 'nope' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('Status') } });
    expect(await search(agent.token, { q: 'x', limit: '500' })).toMatchObject({ status: 400, body: { error: 'limit must be at most 50' } });
    expect(await search(agent.token, { q: 'x', createdFrom: 'yesterday' })).toMatchObject({ status: 400 });
    const long = await search(agent.token, { q: `refund ${'(.*)+ '.repeat(200)}` });
    expect(long.status).toBe(200);
    expect(long.body.query).toMatchObject({ words: ['refund'], truncated: true });
    expect((await server.request('GET', '/api/search?q=refund')).status).toBe(401);
  });

  it('when the input is hostile, then every answer is a result or a 400, for every role, on both read stores', async () => {
    const queries = [
      ...['-', '"', '""', '-"a b"', '"  "', '--refund', 'refund -refund', 'ref"und', '"refund', 'refund"', '- - -'],
      ...['#', '#0', '#-1', '#1.5', '#99999999999999', '9007199254740993', '1e309'],
      ...['e\u0301', '🎉', '\u0000', '\u202e', 'ﬁ', 'İ', 'ß', '\t\n', 'zero\u200bwidth', 'a'.repeat(300), 'ä'.repeat(1000)],
      ...['*', '?', '.*', '(', '[', '\\', '%', '$where', '{"$gt":""}', '__proto__', 'constructor', 'hasOwnProperty', 'refun*'],
      // FTS5's own syntax on the SQLite store (docs/search.md): read as words, never as operators.
      ...['refund AND parcel', 'refund OR', 'NOT refund', 'NEAR(refund parcel, 2)', 'refund NEAR/2 parcel', '^refund', 'text:refund', '{text message}:refund'],
      ...['((refund', 'refund))', ')(', '"refund" "', 'a:b:c', `${'refund '.repeat(1500)}`],
    ];
    const filters = [
      '',
      '&page=0',
      '&page=99999999999',
      '&status=open,open',
      '&createdFrom=2027-01-01&createdTo=2020-01-01',
      '&assignee=me',
      '&category=__proto__',
    ];
    const refused: string[] = [];
    for (const token of [admin, agent.token, carol.token]) {
      for (const q of queries)
        for (const filter of filters) {
          const url = `/api/search?q=${encodeURIComponent(q)}${filter}`;
          const { status } = await server.request('GET', url, { token });
          if (status !== 200 && status !== 400) refused.push(`${status} ${url.slice(0, 80)}`);
        }
      for (const url of [
        '/api/search?q=%E0%A4%A',
        '/api/search?q=%ED%A0%80x',
        '/api/search?q=a&q=b',
        '/api/search?q[a]=b',
        '/api/tickets?q=%22',
        '/api/tickets?q=-',
      ]) {
        const { status } = await server.request('GET', url, { token });
        if (status !== 200 && status !== 400) refused.push(`${status} ${url}`);
      }
    }
    expect(refused).toEqual([]);
  }, 60_000);

  it("when staff search with `tag:` terms, then only tickets carrying every tag are found, beside the words; a customer's `tag:` is 403", async () => {
    const tag = async (ticket: { _id: string }, name: string) =>
      expect((await server.request('POST', `/api/tickets/${ticket._id}/tags`, { token: agent.token, body: { tag: name } })).status).toBe(200);
    await tag(carolTicket, 'refund-req');
    await tag(carolTicket, 'vip');
    await tag(daveTicket, 'refund-req');
    const all = [carolTicket.ticketId, daveTicket.ticketId];
    expect(numbers((await search(agent.token, { q: 'refun tag:refund-req' })).body).sort()).toEqual(all.sort());
    expect(numbers((await search(agent.token, { q: 'refun tag:VIP' })).body)).toEqual([carolTicket.ticketId]);
    expect(numbers((await search(agent.token, { q: 'parcel tag:vip' })).body)).toEqual([]);
    const tagOnly = (await search(agent.token, { q: 'tag:refund-req tag:vip' })).body;
    expect(tagOnly.hits).toEqual([
      expect.objectContaining({ snippet: { source: 'title', messageId: null, seq: null, text: 'Charged twice for my order', highlights: [] } }),
    ]);
    expect(tagOnly.pagination).toMatchObject({ total: 1 });
    expect(numbers((await search(agent.token, { q: 'tag:refund-req', status: 'open', limit: '1', page: '2' })).body)).toHaveLength(1);
    expect(await search(agent.token, { q: 'refund tag:' })).toMatchObject({
      status: 400,
      body: { error: 'A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit' },
    });
    expect(await search(carol.token, { q: 'refund tag:vip' })).toMatchObject({ status: 403, body: { error: 'Only staff can filter by team or tag' } });
  });

  it('when a conversation runs long, then its first and last messages find it, a note among them only staff, and an edit of the first is followed', async () => {
    const frank = await addMember(server, admin, 'customer', 'Frank');
    const ticket = await openTicket(server, frank, category, { title: 'A long conversation' });
    const first = await post(frank.token, ticket._id, 'The kiwi arrived bruised');
    for (let at = 2; at < 55; at++)
      await post(at % 2 ? frank.token : agent.token, ticket._id, at === 30 ? 'Note: the courier is called Walrus' : `Reply number ${at}`, at === 30);
    const last = await post(frank.token, ticket._id, 'Now the papaya is missing');
    const body = await found(frank.token, { q: 'papaya' }, [ticket.ticketId]);
    expect(body.hits[0].snippet).toMatchObject({ source: 'message', messageId: last, seq: 55 });
    await found(frank.token, { q: 'kiwi' }, [ticket.ticketId]);
    await found(agent.token, { q: 'walrus' }, [ticket.ticketId]);
    await found(frank.token, { q: 'walrus' }, []);
    expect((await server.request('PUT', `/api/messages/${first}`, { token: frank.token, body: { content: 'The lychee arrived bruised' } })).status).toBe(200);
    await found(frank.token, { q: 'lychee' }, [ticket.ticketId]);
    await found(frank.token, { q: 'kiwi' }, []);
    await found(frank.token, { q: 'papaya' }, [ticket.ticketId]);
  });

  it('when rebuilt from the log, then the search read model equals the live one', async () => {
    const check = await checkProjections(server.deps.events, [searchProjection], server.deps.readStore, {
      livePosition: () => server.deps.projections.position,
    });
    expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
    expect(check.ok).toBe(true);
  });
});
