import { type TestServer, startTestServer } from '../test/support/server';

describe('Server on the embedded default', () => {
  it('when started, then /api/health names the embedded adapters and no lag', async () => {
    const server = await startTestServer();
    try {
      const health = await server.request('GET', '/api/health');
      expect(health).toMatchObject({
        status: 200,
        body: { status: 'ok', eventStore: 'sqlite', readStore: 'memory', queue: 'inline', projections: { lag: 0 } },
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

  it('when a wrong password is given, then sign-in answers 401 with the API.md message', async () => {
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
