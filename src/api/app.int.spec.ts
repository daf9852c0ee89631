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
