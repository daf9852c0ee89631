import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { addCategory, addMember, type Member, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { bodyOf, startSmtpSink, subjectOf } from '../../../test/support/smtpSink';

const DAY_MS = 24 * 3600 * 1000;

describe('Customer satisfaction', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;
  /** The server's clock runs this far ahead of the real one (to pass the 7-day window). */
  let ahead = 0;

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com' }, clock: () => new Date(Date.now() + ahead) });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin, { name: 'Billing' });
  });

  afterEach(() => {
    ahead = 0;
  });

  afterAll(async () => {
    await server.stop();
    await sink.close();
  });

  const setStatus = async (ticketId: string, status: string) =>
    expect((await server.request('PUT', `/api/tickets/${ticketId}`, { token: admin, body: { status } })).status).toBe(200);

  /** A new customer's ticket, assigned to Alice and resolved. */
  const resolvedTicket = async (firstName: string) => {
    const customer = await addMember(server, admin, 'customer', firstName);
    const ticket = await openTicket(server, customer, category, { title: `Refund for ${firstName}` });
    await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
    await setStatus(ticket._id, 'resolved');
    return { customer, ticket };
  };

  const surveysTo = (email: string) => sink.mailsTo(email).filter((mail) => subjectOf(mail.raw)?.includes('How did we do'));
  /** The five links of the latest survey mail to this customer, by score. */
  const surveyLinks = async (email: string, count = 1) => {
    const mails = await eventually(() => surveysTo(email).length >= count && surveysTo(email), { describe: `${count} survey mail(s)` });
    const links = [...bodyOf(mails.at(-1)!.raw).matchAll(/(https:\/\/desk\.example\.com\/rate\/\S+)/g)].map((match) => match[1]!);
    expect(links).toHaveLength(5);
    return links.map((link) => link.replace('https://desk.example.com', server.url));
  };
  const tokenOf = (link: string) => new URL(link).searchParams.get('t')!;
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  const rating = async (ticketId: string, token: string) => (await server.request('GET', `/api/tickets/${ticketId}/satisfaction`, { token })).body.satisfaction;

  describe('on the web', () => {
    it('lets the customer rate, change the rating and comment; staff and other customers cannot', async () => {
      const { customer, ticket } = await resolvedTicket('Carol');
      expect(await rating(ticket._id, customer.token)).toMatchObject({ canRate: true, episode: { number: 1, open: true, score: null } });
      const listed = async (satisfaction: string) =>
        (
          (await server.request('GET', `/api/tickets?satisfaction=${satisfaction}&limit=100`, { token: agent.token })).body.tickets as Array<{ _id: string }>
        ).map((row) => row._id);
      expect(await listed('awaiting')).toContain(ticket._id);
      // Before the rating, the customer's dashboard notice names the ticket; another customer's names none of it.
      expect((await server.request('GET', '/api/satisfaction/awaiting', { token: customer.token })).body.awaiting).toContainEqual({
        ticketId: ticket._id,
        number: ticket.ticketId,
        title: 'Refund for Carol',
        resolvedAt: expect.any(String),
      });
      expect(await listed('rated')).not.toContain(ticket._id);
      expect((await server.request('GET', '/api/tickets?satisfaction=great', { token: agent.token })).body.error).toBe(
        'satisfaction must be awaiting, rated or low',
      );

      const other = await addMember(server, admin, 'customer', 'Mallory');
      expect((await server.request('GET', `/api/tickets/${ticket._id}/satisfaction`, { token: other.token })).status).toBe(404);
      expect((await server.request('GET', '/api/tickets/no-such-ticket/satisfaction', { token: admin })).status).toBe(404);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: other.token, body: { score: 1 } })).status).toBe(404);
      const byStaff = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: agent.token, body: { score: 5 } });
      expect(byStaff).toMatchObject({ status: 403, body: { error: 'Only the customer can rate a ticket' } });
      expect((await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 9 } })).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        error: expect.stringContaining('at most 5'),
      });

      expect((await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 2 } })).status).toBe(200);
      const changed = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 4 } });
      expect(changed.body.satisfaction.episode).toMatchObject({ score: 4, channel: 'web' });
      // Live Tickets: the filters and the column follow the rating.
      expect(await listed('awaiting')).not.toContain(ticket._id);
      expect(await listed('rated')).toContain(ticket._id);
      expect(await listed('low')).not.toContain(ticket._id);
      const ratings = await server.request('GET', `/api/satisfaction/ratings?tickets=${ticket._id},unknown`, { token: agent.token });
      expect(ratings.body).toEqual({ ratings: [{ ticketId: ticket._id, score: 4, awaiting: false }] });
      const tooLong = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction/comment`, {
        token: customer.token,
        body: { comment: 'x'.repeat(2001) },
      });
      expect(tooLong).toMatchObject({ status: 400, body: { error: 'The comment must be at most 2000 characters' } });
      const commented = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction/comment`, {
        token: customer.token,
        body: { comment: '<b>quick</b> and kind' },
      });
      expect(commented.body.satisfaction.episode.comment).toBe('<b>quick</b> and kind');

      // The history names each rating with its channel; the actor is the customer.
      const history = await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin });
      const rated = history.body.events.filter((event: { type: string }) => event.type.startsWith('Satisfaction'));
      expect(rated.map((event: { summary: string }) => event.summary)).toEqual([
        'Rated the resolution 2 of 5 via the web',
        'Changed the rating from 2 to 4 of 5 via the web',
        'Commented on the rating "<b>quick</b> and kind" via the web',
      ]);
      expect(rated[0].actor).toMatchObject({ userId: customer.id, role: 'customer' });

      // The customer's dashboard notice lists what waits for their rating; staff have none.
      expect((await server.request('GET', '/api/satisfaction/awaiting', { token: admin })).body).toEqual({ awaiting: [] });
      expect((await server.request('GET', '/api/satisfaction/awaiting', { token: customer.token })).body.awaiting).not.toContainEqual(
        expect.objectContaining({ ticketId: ticket._id }),
      );

      // Time travel: the rating as it stood at each moment of the ticket's stream.
      const events = history.body.events as Array<{ type: string }>;
      const at = async (revision: number) =>
        (await server.request('GET', `/api/tickets/${ticket._id}/at?revision=${revision}`, { token: admin })).body.satisfaction;
      const firstRating = events.findIndex((event) => event.type === 'SatisfactionRated');
      expect(await at(firstRating - 1)).toMatchObject({ episode: 1, score: null, comment: null });
      expect(await at(firstRating)).toMatchObject({ episode: 1, score: 2, channel: 'web', comment: null });
      expect(await at(events.length - 1)).toMatchObject({ episode: 1, score: 4, comment: '<b>quick</b> and kind', ended: null });
      expect(await at(0)).toBeNull();
      // The customer's own look back carries it too.
      expect(
        (await server.request('GET', `/api/tickets/${ticket._id}/at?revision=${events.length - 1}`, { token: customer.token })).body.satisfaction,
      ).toMatchObject({ score: 4 });

      // The dashboard: Alice's resolution counts, with its comment.
      const report = (await server.request('GET', '/api/satisfaction/report', { token: agent.token })).body.report;
      expect(report.byAgent.find((row: { id: string }) => row.id === agent.id)).toMatchObject({ name: 'Alice Tester', rated: expect.any(Number) });
      expect(report.latestComments[0]).toMatchObject({ ticketId: ticket._id, score: 4, comment: '<b>quick</b> and kind', agentName: 'Alice Tester' });
      const csv = await fetch(`${server.url}/api/satisfaction/report.csv`, { headers: { authorization: `Bearer ${agent.token}` } });
      expect(csv.headers.get('content-type')).toContain('text/csv');
      expect(await csv.text()).toContain(`"${ticket.ticketId}","Refund for Carol","1"`);
      expect((await server.request('GET', '/api/satisfaction/report', { token: customer.token })).status).toBe(403);
    });

    it('starts a new episode when the ticket is reopened, and refuses changes once it is closed or after 7 days', async () => {
      const { customer, ticket } = await resolvedTicket('Dora');
      await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 1 } });
      const low = await server.request('GET', '/api/tickets?satisfaction=low&limit=100', { token: admin });
      expect(low.body.tickets.map((row: { _id: string }) => row._id)).toContain(ticket._id);
      await setStatus(ticket._id, 'in_progress');
      const reopened = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 5 } });
      expect(reopened).toMatchObject({ status: 409, body: { code: 'SATISFACTION_NOT_OPEN', error: expect.stringContaining('reopened') } });
      await setStatus(ticket._id, 'resolved');
      expect(await rating(ticket._id, customer.token)).toMatchObject({ canRate: true, episode: { number: 2, score: null } });
      ahead = 7 * DAY_MS + 60_000;
      const late = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 5 } });
      expect(late).toMatchObject({ status: 409, body: { error: expect.stringContaining('7 days') } });
      ahead = 0;
      await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 5 } });
      await setStatus(ticket._id, 'closed');
      expect((await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 3 } })).body.error).toContain(
        'closed',
      );
    });
  });

  describe('by e-mail', () => {
    it('mails five links once per episode; a GET (a prefetch) never counts; the POST rates and offers a comment form', async () => {
      const { customer, ticket } = await resolvedTicket('Erin');
      const links = await surveyLinks(customer.email);
      // A mail scanner fetching every link changes nothing.
      for (const link of links) {
        const page = await fetch(link);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Confirm my rating');
      }
      expect((await rating(ticket._id, customer.token)).episode.score).toBeNull();

      const rated = await post(`/rate/${ticket._id}`, { t: tokenOf(links[3]!), score: '4' });
      expect(rated.status).toBe(200);
      expect(await rated.text()).toContain('Anything to add?');
      expect((await rating(ticket._id, customer.token)).episode).toMatchObject({ score: 4, channel: 'email' });
      // The same link used again: the rating is already that, nothing new is recorded.
      expect((await post(`/rate/${ticket._id}`, { t: tokenOf(links[3]!), score: '4' })).status).toBe(200);
      const comment = await post(`/rate/${ticket._id}/comment`, { t: tokenOf(links[3]!), comment: '<script>alert(1)</script> thanks' });
      const shown = await comment.text();
      expect(shown).toContain('&lt;script&gt;alert(1)&lt;/script&gt; thanks');
      expect(shown).not.toContain('<script>');
      const history = (await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin })).body.events as Array<{ type: string }>;
      expect(history.filter((event) => event.type === 'SatisfactionRated')).toHaveLength(1);

      // Reopened and resolved again: a second survey, and the first episode's link no longer works.
      await setStatus(ticket._id, 'in_progress');
      await setStatus(ticket._id, 'resolved');
      const second = await surveyLinks(customer.email, 2);
      expect(tokenOf(second[0]!)).not.toBe(tokenOf(links[0]!));
      const stale = await post(`/rate/${ticket._id}`, { t: tokenOf(links[0]!), score: '1' });
      expect(stale.status).toBe(409);
      expect(await stale.text()).toContain('earlier resolution');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(surveysTo(customer.email)).toHaveLength(2);
    });

    it('refuses a link for another ticket, an expired link and a forged one, with a page that says why', async () => {
      const { customer, ticket } = await resolvedTicket('Fay');
      const { ticket: otherTicket } = await resolvedTicket('Gus');
      const [link] = await surveyLinks(customer.email);
      const foreign = await fetch(link!.replace(ticket._id, otherTicket._id));
      expect(foreign.status).toBe(403);
      expect(await foreign.text()).toContain('not valid for this ticket');
      expect((await post(`/rate/${otherTicket._id}`, { t: tokenOf(link!), score: '1' })).status).toBe(403);
      expect((await post(`/rate/${ticket._id}`, { t: `${tokenOf(link!)}x`, score: '1' })).status).toBe(403);
      const noScore = await post(`/rate/${ticket._id}`, { t: tokenOf(link!) });
      expect(noScore.status).toBe(400);
      ahead = 7 * DAY_MS + 60_000;
      const expired = await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: '5' });
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('expired');
      ahead = 0;
      expect((await rating(ticket._id, customer.token)).episode.score).toBeNull();
    });
    it('keeps rating by a link signed with an older key once a new key is introduced, and by one from before links named keys; refuses a tampered kid', async () => {
      const { customer, ticket } = await resolvedTicket('Kim');
      const token = tokenOf((await surveyLinks(customer.email))[0]!);
      const headerOf = (jwtText: string) => JSON.parse(Buffer.from(jwtText.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
      const signedWith = headerOf(token).kid;
      expect(signedWith).toEqual(expect.any(String));
      const introduced = server.deps.keyring.rotate('rating-links');
      expect(introduced).not.toBe(signedWith);
      expect((await post(`/rate/${ticket._id}`, { t: token, score: '4' })).status).toBe(200);

      // The same link under another header: a kid changed, unknown, of another type, or taken out.
      const { kid: _kid, ...noKid } = headerOf(token);
      for (const header of [
        { ...noKid, kid: introduced },
        { ...noKid, kid: 'k999' },
        { ...noKid, kid: 'constructor' },
        { ...noKid, kid: 7 },
        { ...noKid, kid: null },
        noKid,
      ]) {
        const tampered = [Buffer.from(JSON.stringify(header)).toString('base64url'), ...token.split('.').slice(1)].join('.');
        const statuses = [
          (await post(`/rate/${ticket._id}`, { t: tampered, score: '1' })).status,
          (await fetch(`${server.url}/rate/${ticket._id}?t=${tampered}`)).status,
        ];
        expect({ header, statuses }).toEqual({ header, statuses: [403, 403] });
      }

      // A link mailed before links named their key: no kid, signed with the key derived from JWT_SECRET.
      const { iat: _iat, ...claims } = jwt.decode(token) as jwt.JwtPayload;
      const legacy = jwt.sign(claims, createHmac('sha256', server.deps.jwtSecret).update('satisfaction-link').digest(), { algorithm: 'HS256' });
      expect(headerOf(legacy).kid).toBeUndefined();
      expect((await post(`/rate/${ticket._id}`, { t: legacy, score: '2' })).status).toBe(200);
      expect((await rating(ticket._id, customer.token)).episode.score).toBe(2);

      // A survey mailed now is signed with the new key.
      const { customer: next } = await resolvedTicket('Lou');
      expect(headerOf(tokenOf((await surveyLinks(next.email))[0]!)).kid).toBe(introduced);
    });

    it('refuses by the e-mailed form a comment with NUL or a bidi override, as the API does, and recording nothing', async () => {
      const { customer, ticket } = await resolvedTicket('Ivy');
      const [link] = await surveyLinks(customer.email);
      expect((await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: '2' })).status).toBe(200);
      for (const comment of ['fine\u0000', '\u202E=HYPERLINK("https://evil.example")']) {
        const refused = await post(`/rate/${ticket._id}/comment`, { t: tokenOf(link!), comment });
        expect({ comment, status: refused.status, page: await refused.text() }).toMatchObject({
          comment,
          status: 400,
          page: expect.stringContaining('The comment cannot contain control characters'),
        });
      }
      expect((await rating(ticket._id, customer.token)).episode).toMatchObject({ score: 2, comment: null });
    });

    it('refuses a deactivated customer’s rating by the e-mailed link, recording nothing', async () => {
      const { customer, ticket } = await resolvedTicket('Jo');
      const [link] = await surveyLinks(customer.email);
      expect((await server.request('PUT', `/api/users/${customer.id}`, { token: admin, body: { isActive: false } })).status).toBe(200);
      const refused = await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: '1' });
      expect({ status: refused.status, page: await refused.text() }).toMatchObject({ status: 403, page: expect.stringContaining('deactivated') });
      expect((await server.request('GET', `/api/tickets/${ticket._id}/satisfaction`, { token: admin })).body.satisfaction.episode.score).toBeNull();
    });

    it('answers a link with the API guards: a page saying so in maintenance, and 429 past the rate limit, recording nothing', async () => {
      const { customer, ticket } = await resolvedTicket('Hal');
      const [link] = await surveyLinks(customer.email);
      const settings = (body: Record<string, unknown>) => server.request('PUT', '/api/settings', { token: admin, body });
      try {
        expect((await settings({ maintenanceMode: true })).status).toBe(200);
        const closed = await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: '5' });
        expect(closed.status).toBe(503);
        expect(await closed.text()).toContain('maintenance');
        expect((await settings({ maintenanceMode: false })).status).toBe(200);
        expect((await settings({ rateLimitMaxRequests: 2 })).status).toBe(200);
        // Opening the link is a read; answering it is a change, counted even when the answer is refused.
        expect((await fetch(link!)).status).toBe(200);
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push((await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: 'none' })).status);
        expect(answers).toEqual([400, 400, 429]);
        expect((await post(`/rate/${ticket._id}`, { t: tokenOf(link!), score: '5' })).status).toBe(429);
      } finally {
        await settings({ maintenanceMode: false, rateLimitMaxRequests: 100 });
      }
      expect((await rating(ticket._id, customer.token)).episode.score).toBeNull();
    });
  });

  describe('settings', () => {
    it('are changed by admins only, validated, and turn the survey off on the server', async () => {
      expect((await server.request('PUT', '/api/satisfaction/settings', { token: agent.token, body: { enabled: false } })).status).toBe(403);
      const bad = await server.request('PUT', '/api/satisfaction/settings', { token: admin, body: { labels: ['a', 'b'], delayMinutes: -1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.details.map((detail: { message: string }) => detail.message)).toEqual(
        expect.arrayContaining(['Give exactly five labels, for the scores 1 to 5', 'The delay cannot be negative']),
      );
      const changed = await server.request('PUT', '/api/satisfaction/settings', {
        token: admin,
        body: { question: 'Happy?', channels: { web: false, telegram: true, email: true } },
      });
      expect(changed.body.settings).toMatchObject({ question: 'Happy?', channels: { web: false } });
      const { customer, ticket } = await resolvedTicket('Hal');
      expect(await rating(ticket._id, customer.token)).toMatchObject({ question: 'Happy?', canRate: false });
      const refused = await server.request('PUT', `/api/tickets/${ticket._id}/satisfaction`, { token: customer.token, body: { score: 5 } });
      expect(refused).toMatchObject({ status: 409, body: { code: 'SATISFACTION_OFF' } });
      await server.request('PUT', '/api/satisfaction/settings', {
        token: admin,
        body: { enabled: false, channels: { web: true, telegram: true, email: true } },
      });
      const { customer: ivy } = await resolvedTicket('Ivy');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(surveysTo(ivy.email)).toHaveLength(0);
      await server.request('PUT', '/api/satisfaction/settings', {
        token: admin,
        body: { enabled: true, question: 'How would you rate the support you received?' },
      });
    });
  });
});

describe('Customer satisfaction survey across a restart', () => {
  it('is mailed once for the episode, and a delayed survey still waiting is sent once by the restarted server', async () => {
    const sink = await startSmtpSink();
    const env = { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com' };
    let server = await startTestServer({ env });
    try {
      const admin = await server.login();
      const category = await addCategory(server, admin, { name: 'Restarts' });
      const customer = await addMember(server, admin, 'customer', 'Olga');
      const first = await openTicket(server, customer, category, { title: 'First' });
      await server.request('PUT', `/api/tickets/${first._id}`, { token: admin, body: { status: 'resolved' } });
      const surveys = () => sink.mailsTo(customer.email).filter((mail) => subjectOf(mail.raw)?.includes('How did we do'));
      await eventually(() => surveys().length === 1, { describe: 'the first survey' });
      // A survey due in a minute is waiting in the queue when the server stops.
      await server.request('PUT', '/api/satisfaction/settings', { token: admin, body: { delayMinutes: 1 } });
      const second = await openTicket(server, customer, category, { title: 'Second' });
      await server.request('PUT', `/api/tickets/${second._id}`, { token: admin, body: { status: 'resolved' } });
      await eventually(async () => (await server.deps.queue.pending('satisfaction')).length === 1, { describe: 'the delayed survey job' });
      const dataDir = server.dataDir;
      await server.stop({ keepData: true });
      server = await startTestServer({ env, dataDir });
      const waiting = await server.deps.queue.pending('satisfaction');
      expect(waiting).toHaveLength(1);
      // Run it now rather than wait the minute: the restarted server sends it once, and nothing again for the first episode.
      expect(await server.deps.queue.wake('satisfaction')).toBe(1);
      await eventually(() => surveys().length === 2, { describe: 'the delayed survey after the restart' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(surveys().map((mail) => bodyOf(mail.raw).includes('“Second”'))).toEqual([false, true]);
    } finally {
      await server.stop();
      await sink.close();
    }
  });
});
