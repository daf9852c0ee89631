/** Access tokens: signed here when a session starts or refreshes, verified by the HTTP and socket layers (src/api/http/auth.ts). */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Role } from '#contract/users';

export const TOKEN_ISSUER = 'support-desk';
export const TOKEN_AUDIENCE = 'support-desk-api';
const ACCESS_TOKEN_SECONDS = 15 * 60;

export function signAccessToken(secret: string, user: { _id: string; role: Role }, sessionId: string): string {
  return jwt.sign({ role: user.role, typ: 'access', sid: sessionId }, secret, {
    algorithm: 'HS256',
    subject: user._id,
    jwtid: randomUUID(),
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
    expiresIn: ACCESS_TOKEN_SECONDS,
  });
}
