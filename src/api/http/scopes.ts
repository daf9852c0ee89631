import type { RequestHandler } from 'express';
import type { ApiTokenScope } from '#contract/apiTokens';
import { ForbiddenError } from '#contract/errors';
import { isStaff } from '#contract/users';
import { tokenNotAllowed } from '../../app/apiTokens/service';

/**
 * What a route lets an API token do (docs/integrations.md), as the OpenAPI document shows it
 * (`x-api-token`): refused, or the scopes a token needs (none: any token) and those a staff
 * member's token needs besides. `admin` grants every scope.
 */
export type TokenRule = { allowed: false } | { allowed: true; scopes: ApiTokenScope[]; staffScopes: ApiTokenScope[] };

/** A route's declaration: the middleware that applies its rule, carrying the rule for the document and the tests. */
export type TokenDeclaration = RequestHandler & { readonly tokenRule: TokenRule };

/**
 * A call with an API token reaches its route without a user (`req.user`): only a declaration lets
 * the token act there, after checking its scopes. So a route that declares nothing refuses every
 * token (403 TOKEN_NOT_ALLOWED from its role guard, or an anonymous caller on a public route), and
 * the rule is read from the route itself, never from the path a client wrote.
 */
function declare(rule: TokenRule): TokenDeclaration {
  const check: RequestHandler = (req, _res, next) => {
    const caller = req.tokenUser;
    if (!caller?.token) return next();
    if (!rule.allowed) throw tokenNotAllowed();
    const { scopes } = caller.token;
    const needed = isStaff(caller.role) ? [...rule.scopes, ...rule.staffScopes] : rule.scopes;
    const missing = needed.find((wanted) => !scopes.includes(wanted) && !scopes.includes('admin'));
    if (missing) throw new ForbiddenError(`This API token lacks the ${missing} scope`, 'INSUFFICIENT_SCOPE');
    req.user = caller;
    delete req.authError;
    next();
  };
  return Object.assign(check, { tokenRule: rule });
}

/** A token needs this scope (or `admin`). */
export const scope = (needed: ApiTokenScope) => declare({ allowed: true, scopes: [needed], staffScopes: [] });

/**
 * For the reads that carry internal notes whole (history, time travel, search): a staff member's
 * token needs `notes:read` as well. The conversation routes leave the notes out instead.
 */
export const scopeWithNotes = (needed: ApiTokenScope) => declare({ allowed: true, scopes: [needed], staffScopes: ['notes:read'] });

/** Any token, whatever its scopes: public routes, and the caller's own profile. */
export const open = declare({ allowed: true, scopes: [], staffScopes: [] });

/** No token: the API tokens themselves, signing in or out, a person's preferences. */
export const noToken = declare({ allowed: false });
