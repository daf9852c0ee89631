import { LiveClient } from '../../../test/support/liveClient';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';

const TOKEN = 'scrape-token-0123456789';

/** The value of one sample of a Prometheus text answer (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('Prometheus metrics', () => {
  describe('with METRICS_TOKEN and METRICS_PORT set', () => {
    let server: TestServer;
    let admin: string;
    const scrape = async (token: string | null = TOKEN, url = `${server.url}/metrics`) => {
      const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    };

    beforeAll(async () => {
      server = await startTestServer({ env: { METRICS_TOKEN: TOKEN, METRICS_PORT: '0' } });
      admin = await server.login();
      await server.request('GET', '/api/tickets', { token: admin });
      await server.request('GET', '/api/tickets', { token: admin });
      await server.request('GET', '/api/tickets/no-such-ticket', { token: admin });
      await server.request('GET', '/api/no/such/route/raw-segment-12345');
    });
    afterAll(() => server.stop());

    it('when scraped without the token or with a wrong one, then it answers 401 and no figures', async () => {
      for (const token of [null, 'wrong-token-0123456789']) {
        const answer = await scrape(token);
        expect(answer.status).toBe(401);
        expect(answer.text).not.toContain('desk_');
      }
    });

    it('when scraped with the token, then the latency histogram is labelled by method, route pattern and status, never by raw URL', async () => {
      const answer = await scrape();
      expect(answer.status).toBe(200);
      expect(answer.type).toContain('text/plain');
      expect(sample(answer.text, 'desk_http_request_duration_seconds_count', { method: 'GET', route: '/api/tickets', status: '200' })).toBeGreaterThanOrEqual(
        2,
      );
      expect(sample(answer.text, 'desk_http_request_duration_seconds_count', { method: 'GET', route: '/api/tickets/:id', status: '404' })).toBe(1);
      expect(sample(answer.text, 'desk_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(sample(answer.text, 'desk_http_request_duration_seconds_bucket', { route: '/api/tickets', status: '200', le: '+Inf' })).toBeGreaterThanOrEqual(2);
      expect(answer.text).not.toContain('no-such-ticket');
      // In no label (a figure's value may hold those digits: a lag of 0.012345 s failed this once).
      expect(answer.text).not.toContain('raw-segment');
      expect(answer.text).not.toMatch(/\{[^}\n]*12345/);
    });

    it('then the projections, the event log, the appends and the deliveries have their figures', async () => {
      const { text } = await scrape();
      const head = sample(text, 'desk_event_store_head_position')!;
      expect(head).toBeGreaterThan(0);
      expect(sample(text, 'desk_projection_position')).toBe(head);
      expect(sample(text, 'desk_projection_lag_events')).toBe(0);
      expect(sample(text, 'desk_projection_events_processed_total')).toBeGreaterThan(0);
      // Signing in appends a session and a sign-in; the first admin was created by this process too.
      expect(sample(text, 'desk_events_appended_total', { type: 'SessionStarted' })).toBeGreaterThanOrEqual(1);
      for (const channel of ['telegram', 'email']) {
        expect(sample(text, 'desk_deliveries_failed', { channel })).toBe(0);
        expect(sample(text, 'desk_delivery_queue_depth', { channel, state: 'waiting' })).toBe(0);
      }
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    });

    it('when a socket.io client connects and leaves, then the live sockets gauge follows', async () => {
      const before = sample((await scrape()).text, 'desk_live_sockets')!;
      const client = await LiveClient.connect(server.url, admin);
      try {
        expect(sample((await scrape()).text, 'desk_live_sockets')).toBe(before + 1);
      } finally {
        client.socket.disconnect();
      }
      await eventually(async () => sample((await scrape()).text, 'desk_live_sockets') === before, { describe: 'the gauge back to its count before' });
    });

    it('when the METRICS_PORT listener is scraped, then it serves the same figures and the detailed health behind the same token, and nothing else', async () => {
      expect(server.metricsUrl).not.toBeNull();
      expect((await scrape(null, server.metricsUrl!)).status).toBe(401);
      const answer = await scrape(TOKEN, server.metricsUrl!);
      expect(answer.status).toBe(200);
      expect(sample(answer.text, 'desk_http_request_duration_seconds_count', { method: 'GET', route: '/api/tickets', status: '200' })).toBeGreaterThanOrEqual(
        2,
      );
      const healthUrl = server.metricsUrl!.replace('/metrics', '/api/health');
      expect((await fetch(healthUrl)).status).toBe(401);
      const health = await fetch(healthUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', projections: { lag: 0 }, deliveries: { failed: 0 } });
      expect((await fetch(server.metricsUrl!.replace('/metrics', '/api/tickets'), { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    });
  });

  describe('with METRICS_PORT only', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ env: { METRICS_PORT: '0' } });
    });
    afterAll(() => server.stop());

    it('when scraped, then the separate listener serves the figures without a token and the app port keeps /metrics closed', async () => {
      const separate = await fetch(server.metricsUrl!);
      expect(separate.status).toBe(200);
      expect(await separate.text()).toContain('desk_live_sockets');
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    });
  });

  describe('with neither METRICS_TOKEN nor METRICS_PORT', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(() => server.stop());

    it('when /metrics is asked for, with or without a token, then it answers 404 and no figures', async () => {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Array<Record<string, string>>) {
        const response = await fetch(`${server.url}/metrics`, { headers });
        expect(response.status).toBe(404);
        expect(await response.text()).not.toContain('desk_');
      }
      expect(server.metricsUrl).toBeNull();
    });
  });
});
