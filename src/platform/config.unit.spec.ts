import { ConfigError, loadConfig } from './config';

describe('Configuration', () => {
  it('when nothing is set, then it uses the embedded defaults of API.md', () => {
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
});
