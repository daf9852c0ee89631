import { connect } from 'node:net';
import { type TestServer, startTestServer } from '../test/support/server';

describe('Server on the embedded default', () => {
  it('when started, then /api/health names the embedded adapters and no lag', async () => {
    const server = await startTestServer();
    try {
      const health = await server.health();
      expect(health).toMatchObject({
        status: 200,
        body: { status: 'ok', eventStore: 'sqlite', readStore: 'sqlite', queue: 'inline', projections: { lag: 0 } },
      });
    } finally {
      await server.stop();
    }
  });

  it('when restarted on the same DATA_DIR, then everything written survives and no second admin is made', async () => {
    let server: TestServer = await startTestServer();
    expect(server.firstAdmin).toMatchObject({ email: 'admin@example.com', generatedPassword: null });
    const token = await server.login();
    await server.request('POST', '/api/categories', { token, body: { name: 'Survives restarts' } });
    const dataDir = server.dataDir;
    await server.stop({ keepData: true });

    server = await startTestServer({ dataDir });
    try {
      expect(server.firstAdmin).toBeNull();
      const again = await server.login();
      const list = await server.request('GET', '/api/categories', { token: again });
      expect(list.body.categories.map((c: { name: string }) => c.name)).toEqual(['Survives restarts']);
    } finally {
      await server.stop();
    }
  });

  it('when a wrong password is given, then sign-in answers 401 with the docs/contract.md message', async () => {
    const server = await startTestServer();
    try {
      const wrong = await server.request('POST', '/api/auth/login', { body: { email: 'admin@example.com', password: 'nope-nope' } });
      expect(wrong).toMatchObject({ status: 401, body: { error: 'Invalid email or password' } });
      const unknown = await server.request('POST', '/api/auth/login', { body: { email: 'ghost@example.com', password: 'nope-nope' } });
      expect(unknown).toMatchObject({ status: 401, body: { error: 'Invalid email or password' } });
    } finally {
      await server.stop();
    }
  });
});

describe('Server against slow clients', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' } });
  });
  afterAll(() => server.stop());

  /**
   * Opens a raw connection, sends `head`, then one more byte of `trickle` every 200 ms (never idle, just
   * slow); resolves with what came back and when the server closed the connection, or after `giveUpMs`.
   */
  const sendSlowly = (head: string, trickle: string, giveUpMs: number) =>
    new Promise<{ answer: string; closedAfterMs: number | null }>((resolve) => {
      const started = Date.now();
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      let answer = '';
      let sent = 0;
      const drip = setInterval(() => socket.write(trickle[sent++ % trickle.length]!), 200);
      const finish = (closedAfterMs: number | null) => {
        clearInterval(drip);
        clearTimeout(giveUp);
        socket.destroy();
        resolve({ answer, closedAfterMs });
      };
      const giveUp = setTimeout(() => finish(null), giveUpMs);
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => finish(Date.now() - started));
      socket.write(head);
    });

  it('when a body arrives slower than the request timeout allows, then the server answers 408 and closes the connection soon after the timeout', async () => {
    const head = 'POST /api/auth/login HTTP/1.1\r\nHost: desk\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"email":"';
    const { answer, closedAfterMs } = await sendSlowly(head, 'a', 20_000);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(1900);
    expect(closedAfterMs!).toBeLessThan(10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  it('when headers arrive slower than the headers timeout allows, then the connection is cut soon after it', async () => {
    const { answer, closedAfterMs } = await sendSlowly('GET /api/health HTTP/1.1\r\nHost: desk\r\n', 'X-Slow: 1\r\n', 20_000);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);
});
