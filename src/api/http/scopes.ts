import type { RequestHandler } from 'express';
import type { ApiTokenScope } from '#contract/apiTokens';
import { ForbiddenError } from '#contract/errors';
import { isStaff } from '#contract/users';

const PUBLIC = new Set(['/health', '/settings/public', '/openapi.json']);
/** Reads that carry internal notes whole (history, time travel, search over notes): staff tokens need `notes:read` for them as well. */
const WITH_NOTES = /^\/(tickets\/[^/]+\/(history|at)|search)$/;
const TICKET_READS = /^\/(tickets|search|categories|canned-messages|uploads|satisfaction\/ratings)(\/|$)/;
const MESSAGE_WRITES = /^\/(tickets\/[^/]+\/messages|messages\/[^/]+)$/;

/**
 * The scope a call through an API token needs, by method and path; `null` when no token may make
 * it at all (the API tokens themselves, signing in or out, a person's preferences).
 */
function scopeFor(method: string, path: string): ApiTokenScope | 'none' | null {
  if (PUBLIC.has(path) || path.startsWith('/docs')) return 'none';
  if (path.startsWith('/api-tokens') || (path.startsWith('/auth/') && path !== '/auth/profile')) return null;
  const reading = method === 'GET' || method === 'HEAD';
  if (path === '/auth/profile') return reading ? 'none' : null;
  if (path === '/events') return reading ? 'tickets:read' : 'admin';
  if (!reading && MESSAGE_WRITES.test(path) && method !== 'DELETE') return 'messages:write';
  if (reading && TICKET_READS.test(path)) return 'tickets:read';
  if (!reading && /^\/tickets(\/|$)/.test(path)) return 'tickets:write';
  return 'admin';
}

/**
 * What a token may do is the narrower of its scopes and its owner's role: the routes' role guards
 * still apply after this. `admin` grants every scope; `notes:read` is needed besides for the ticket
 * reads that hold internal notes whole (the conversation routes leave the notes out instead).
 */
export const requireTokenScope: RequestHandler = (req, _res, next) => {
  const token = req.user?.token;
  if (!token) return next();
  const needed = scopeFor(req.method, req.path);
  if (needed === null) throw new ForbiddenError('An API token cannot be used for this; sign in as a person', 'TOKEN_NOT_ALLOWED');
  const has = (scope: ApiTokenScope) => token.scopes.includes(scope) || token.scopes.includes('admin');
  if (needed !== 'none' && !has(needed)) throw new ForbiddenError(`This API token lacks the ${needed} scope`, 'INSUFFICIENT_SCOPE');
  if (WITH_NOTES.test(req.path) && isStaff(req.user!.role) && !has('notes:read'))
    throw new ForbiddenError('This API token lacks the notes:read scope', 'INSUFFICIENT_SCOPE');
  next();
};
