import { type TestServer, startTestServer } from '../../../test/support/server';
import { LOGIN_LIMITS } from './throttle';

const PASSWORD = 'owner-secret-1';
const registration = (name: string) => ({ username: name, email: `${name}@example.com`, password: PASSWORD, firstName: 'Test', lastName: name });

/**
 * Sign-in guessing over real HTTP. The test client stands for a proxy on the loopback (trusted by
 * default), so X-Forwarded-For gives each request the address of a different client.
 */
describe('Sign-in guessing over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const signIn = (email: string, password: string, address: string) =>
    server.request('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });

  it('when 60 wrong guesses on one account come at once from 60 addresses, then only a few reach the password check and the rest are refused', async () => {
    const { email } = registration('guessed');
    expect((await server.request('POST', '/api/auth/register', { body: registration('guessed') })).status).toBe(201);
    const ownerAddress = '198.51.100.7';
    expect((await signIn(email, PASSWORD, ownerAddress)).status).toBe(200);

    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(email, `guess-${i}`, `203.0.113.${i + 1}`)));
    const seconds = (Date.now() - started) / 1000;
    // 401 is a password that was checked and found wrong; 429 a guess refused before any check.
    const checked = answers.filter((answer) => answer.status === 401).length;
    const refused = answers.filter((answer) => answer.status === 429).length;
    process.stdout.write(`60 parallel guesses: ${checked} reached the password check, ${refused} refused, in ${seconds.toFixed(1)} s\n`);
    expect(checked + refused).toBe(60);
    // The free attempts, then one turn per gap until the line would pass the cap (250+500+1000+2000 ms).
    expect(checked).toBeLessThanOrEqual(LOGIN_LIMITS.account.free + 5);
    expect(refused).toBeGreaterThanOrEqual(60 - LOGIN_LIMITS.account.free - 5);
    const refusal = answers.find((answer) => answer.status === 429)!;
    expect(refusal.body).toEqual({
      error: expect.stringMatching(/^Too many sign-in attempts on this account right now\. Please try again in [1-5] seconds?\.$/),
      code: 'RATE_LIMITED',
    });
    expect(Number(refusal.headers.get('retry-after'))).toBeLessThanOrEqual(5);

    // The owner, at the address they signed in from before, is not held behind the guessers.
    const ownerStarted = Date.now();
    expect((await signIn(email, PASSWORD, ownerAddress)).status).toBe(200);
    expect(Date.now() - ownerStarted).toBeLessThan(LOGIN_LIMITS.account.maxDelayMs + 10_000);
  }, 120_000);

  it('when strangers behind a shared address fail five times on an account, then the owner there still signs in with the right password', async () => {
    const { email } = registration('shared_nat');
    expect((await server.request('POST', '/api/auth/register', { body: registration('shared_nat') })).status).toBe(201);
    const shared = '192.0.2.50';
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.points; i++) expect((await signIn(email, `stranger-${i}`, shared)).status).toBe(401);
    // A further wrong password from there is refused as before ...
    const refused = await signIn(email, 'stranger-again', shared);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many failed sign-in attempts. Please try again in 15 minutes.', code: 'RATE_LIMITED' });
    // ... but the owner's right one is not.
    const owner = await signIn(email, PASSWORD, shared);
    expect(owner.status).toBe(200);
    expect(owner.body.user.email).toBe(email);
  }, 60_000);
});
