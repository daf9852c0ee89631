import { EventStoreDBClient } from '@eventstore/db-client';
import { ConfigError, loadConfig } from './config';

describe('Configuration', () => {
  it('when nothing is set, then it uses the embedded defaults of docs/contract.md', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: './data', ADMIN_EMAIL: 'admin@example.com', TELEGRAM_API_ROOT: 'https://api.telegram.org' });
    expect(config.EVENTSTORE_URL).toBeUndefined();
    expect(config.MONGO_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('when a value is wrong, then the error names each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', MONGO_URL: 'http://nope', JWT_SECRET: 'short' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', MONGO_URL: 'http://nope', JWT_SECRET: 'short' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('PORT');
      expect(message).toContain('MONGO_URL: must start with mongodb:// or mongodb+srv://');
      expect(message).toContain('JWT_SECRET: must be at least 32 characters');
    }
  });

  it('when a URL is empty, then it counts as unset', () => {
    expect(loadConfig({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });

  describe('when EVENTSTORE_URL uses a KurrentDB scheme', () => {
    it.each([
      ['kurrentdb://eventstore:2113?tls=false', 'esdb://eventstore:2113?tls=false'],
      ['kurrentdb+discover://admin:changeit@cluster.example:2113', 'esdb+discover://admin:changeit@cluster.example:2113'],
      ['kdb://a:2113,b:2113?nodePreference=leader', 'esdb://a:2113,b:2113?nodePreference=leader'],
      ['kdb+discover://cluster.example', 'esdb+discover://cluster.example'],
      ['esdb://localhost:2113?tls=false', 'esdb://localhost:2113?tls=false'],
    ])('when it is %s, then the client gets %s and can build a client from it', (given, expected) => {
      const url = loadConfig({ EVENTSTORE_URL: given }).EVENTSTORE_URL;
      expect(url).toBe(expected);
      const client = EventStoreDBClient.connectionString(url!);
      void client.dispose();
    });
  });

  it.each([
    ['http://eventstore:2113', 'EVENTSTORE_URL: not a connection string'],
    ['kurrentdb://', 'EVENTSTORE_URL: not a connection string'],
    ['esdb://host:2113?tls=maybe', 'EVENTSTORE_URL: not a connection string'],
  ])('when EVENTSTORE_URL is %s, then the start stops and names the variable', (given, message) => {
    expect(() => loadConfig({ EVENTSTORE_URL: given })).toThrow(message);
  });

  it('when TRUST_PROXY is unset, then only a proxy on the loopback is trusted', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe('loopback');
  });

  it.each([
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8, 172.16.0.1', '10.0.0.0/8,172.16.0.1'],
    ['loopback,uniquelocal,fd00::/8', 'loopback,uniquelocal,fd00::/8'],
  ])('when TRUST_PROXY is %s, then express gets %p', (given, expected) => {
    expect(loadConfig({ TRUST_PROXY: given }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/64', 'proxy.example'])('when TRUST_PROXY is %s, then the start stops and names the variable', (given) => {
    expect(() => loadConfig({ TRUST_PROXY: given })).toThrow('TRUST_PROXY: must be true, false');
  });

  it('when PUBLIC_URL is not http or https, then the start stops and names the variable', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://desk.example' })).toThrow('PUBLIC_URL');
    expect(loadConfig({ PUBLIC_URL: 'https://desk.example' }).PUBLIC_URL).toBe('https://desk.example');
  });

  it('when the failed jobs kept are not set, then 1000 are kept for 30 days; a count or age out of bounds stops the start and names the variable', () => {
    expect(loadConfig({})).toMatchObject({ FAILED_JOBS_KEEP_COUNT: 1000, FAILED_JOBS_KEEP_MS: 30 * 24 * 3600 * 1000 });
    expect(loadConfig({ FAILED_JOBS_KEEP_COUNT: '50', FAILED_JOBS_KEEP_MS: '3600000' })).toMatchObject({
      FAILED_JOBS_KEEP_COUNT: 50,
      FAILED_JOBS_KEEP_MS: 3_600_000,
    });
    expect(() => loadConfig({ FAILED_JOBS_KEEP_COUNT: '0' })).toThrow('FAILED_JOBS_KEEP_COUNT');
    expect(() => loadConfig({ FAILED_JOBS_KEEP_COUNT: 'many' })).toThrow('FAILED_JOBS_KEEP_COUNT');
    expect(() => loadConfig({ FAILED_JOBS_KEEP_MS: '10' })).toThrow('FAILED_JOBS_KEEP_MS');
  });
});
