import jwt from 'jsonwebtoken';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, signAccessToken } from './tokens';

const SECRET = 'a-test-secret-of-some-length-0123456789';
const USER = { _id: 'u1', role: 'agent' as const };

describe('access tokens', () => {
  it('when signed, then the token verifies with the secret and names the user, role, session and 15 minutes', () => {
    const token = signAccessToken(SECRET, USER, 's1');
    const claims = jwt.verify(token, SECRET, { algorithms: ['HS256'], issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: 'u1', role: 'agent', sid: 's1', typ: 'access' });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    expect(() => jwt.verify(token, 'another-secret')).toThrow('invalid signature');
  });

  it('when many sign-ins come at once, then signing costs microseconds, not the PEM parse jsonwebtoken tries on a string secret', () => {
    for (let i = 0; i < 20; i++) signAccessToken(SECRET, USER, `warm-${i}`);
    const started = performance.now();
    for (let i = 0; i < 500; i++) signAccessToken(SECRET, USER, `s${i}`);
    // With the string: 470-520 µs a token on the development machine (some 250 ms here); with the key object 20 ms.
    expect(performance.now() - started).toBeLessThan(80);
  });
});
