import { request as httpRequest } from 'node:http';
import { type TestServer, startTestServer } from '../../test/support/server';

/** A GET (helmet sets the same headers on every answer, the web app's pages included) with the Host header a browser sends for http://desk.example:3000 (fetch cannot set Host). */
const headersFor = (server: TestServer, path: string, host: string) =>
  new Promise<NodeJS.Dict<string | string[]>>((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });

describe('The security headers on a real host', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.stop());

  it('when the desk is served on plain http at a public name, then the CSP does not ask the browser to upgrade to https', async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'http://desk.example:3000' } });
    const csp = String((await headersFor(server, '/api/health', 'desk.example:3000'))['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('when PUBLIC_URL is unset and the page is opened by IP, then the CSP does not ask for https either', async () => {
    server = await startTestServer();
    const csp = String((await headersFor(server, '/api/health', '203.0.113.7:3000'))['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('when PUBLIC_URL is https (behind a TLS proxy), then the CSP asks the browser to upgrade', async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'https://desk.example' } });
    const csp = String((await headersFor(server, '/api/health', 'desk.example'))['content-security-policy']);
    expect(csp).toContain('upgrade-insecure-requests');
  });
});

describe('TRUST_PROXY', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.stop());

  /** Two anonymous changes from two clients behind the same proxy (this test, on the loopback), with a limit of one change. */
  const twoClientsBehindTheProxy = async (env: Record<string, string>) => {
    server = await startTestServer({ env });
    const token = await server.login();
    expect((await server.request('PUT', '/api/settings', { token, body: { rateLimitMaxRequests: 1 } })).status).toBe(200);
    // An anonymous ticket is refused (401) after it was counted.
    const first = await server.request('POST', '/api/tickets', { headers: { 'x-forwarded-for': '198.51.100.1' }, body: {} });
    const second = await server.request('POST', '/api/tickets', { headers: { 'x-forwarded-for': '198.51.100.2' }, body: {} });
    return [first.status, second.status];
  };

  it('when the proxy is trusted (the default, loopback), then each forwarded client has its own rate limit', async () => {
    expect(await twoClientsBehindTheProxy({})).toEqual([401, 401]);
  });

  it('when TRUST_PROXY is false, then X-Forwarded-For is ignored and both clients count as the proxy', async () => {
    expect(await twoClientsBehindTheProxy({ TRUST_PROXY: 'false' })).toEqual([401, 429]);
  });
});
