import { type BaseQueryFn, type FetchArgs, type FetchBaseQueryError, createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';
import { disconnectLive, onLiveResynced } from '../lib/live';
import { refreshTokens, tokens } from '../lib/tokens';
import { signedOut } from '../entities/session/sessionSlice';

/** One API for the whole app (features and entities inject their endpoints); 10 s timeout and bearer token of docs/product.md section 7. */
const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  timeout: 10_000,
  prepareHeaders: (headers) => {
    const token = tokens.access();
    if (token) headers.set('authorization', `Bearer ${token}`);
    return headers;
  },
});

const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Waits before sending an action again whose answer was lost (the network, or the 10 s timeout). */
const RETRY_DELAYS_MS = [1_000, 3_000];

/** A fresh key for one action; getRandomValues, unlike randomUUID, also works on plain-http pages. */
export const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * A request that creates something, sent with an Idempotency-Key: the server answers a repeat of it
 * with what the first one created, so it is safe to send again when no answer came (see `sentSafely`).
 * The key is made once per action, here (or by the caller, when the action outlives the request:
 * a message kept in the outbox is sent again later with the key it was given when written), and
 * kept by every retry.
 */
export const creating = (args: FetchArgs, key = newKey()): FetchArgs => ({
  ...args,
  headers: { ...(args.headers as Record<string, string> | undefined), [IDEMPOTENCY_HEADER]: key },
});

const hasKey = (args: string | FetchArgs) => typeof args !== 'string' && Boolean((args.headers as Record<string, string> | undefined)?.[IDEMPOTENCY_HEADER]);

/** Sends; a keyed request that got no answer is sent again, with the same key, after a pause. */
const sentSafely: typeof rawBaseQuery = async (args, api, extra) => {
  let result = await rawBaseQuery(args, api, extra);
  for (const delay of hasKey(args) ? RETRY_DELAYS_MS : []) {
    if (result.error?.status !== 'FETCH_ERROR' && result.error?.status !== 'TIMEOUT_ERROR') break;
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (api.signal.aborted) break;
    result = await rawBaseQuery(args, api, extra);
  }
  return result;
};

const urlOf = (args: string | FetchArgs) => (typeof args === 'string' ? args : args.url);
/** A 401 from these means wrong credentials, not an expired session. */
const isCredentialCheck = (url: string) => url.startsWith('/auth/login') || url.startsWith('/auth/register') || url.startsWith('/auth/refresh');

/**
 * docs/product.md section 7: on a 401 refresh once and retry; without a refresh token or when the refresh is
 * refused, sign out. A refresh that got no answer (aborted, offline) signs nobody out: the call
 * fails as a network error would, and the tokens stay for the next try.
 */
const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (args, api, extra) => {
  let result = await sentSafely(args, api, extra);
  if (result.error?.status === 401 && !isCredentialCheck(urlOf(args))) {
    const refreshed = await refreshTokens();
    if (refreshed === 'unavailable')
      return { error: { status: 'FETCH_ERROR', error: 'The session could not be refreshed; the network or the server did not answer' } };
    if (refreshed === 'refreshed') result = await sentSafely(args, api, extra);
    if (result.error?.status === 401) {
      tokens.clear();
      disconnectLive();
      api.dispatch(signedOut());
    }
  }
  // 202 ACCEPTED_PENDING: stored, but the server's views lag behind (docs/read-models.md). The screen
  // shows the server's words instead of an answer it cannot use; the live channel brings the change.
  if (result.meta?.response?.status === 202 && (result.data as { code?: string } | undefined)?.code === 'ACCEPTED_PENDING')
    return { error: { status: 202, data: result.data }, meta: result.meta };
  return result;
};

/**
 * Lists are paged (docs/contract.md: at most 1000 a page). The screens that show a whole list (categories,
 * canned messages, bot commands, the whitelist) ask for the largest page; the desk's admin lists
 * stay well below it.
 */
export const WHOLE_LIST = { limit: 1000 } as const;

export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: [
    'Profile',
    'Preferences',
    'Category',
    'Ticket',
    'Stats',
    'Presence',
    'Canned',
    'Macro',
    'User',
    'BotCommand',
    'BotSettings',
    'Settings',
    'Whitelist',
    'AccessRequest',
    'Delivery',
    'Satisfaction',
    'Integration',
    'Sla',
    'Team',
    'Rule',
    'Availability',
    'Notification',
    'View',
    'Tag',
  ],
  endpoints: () => ({}),
});

/** The server's `{ error }` text when there is one (docs/product.md section 8 prefers it), else the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : fallback;
}

/**
 * Once the live channel is back: presence is never in the log, so it is always asked for again;
 * the views fed by the log are fetched again only when the server could not replay what was missed.
 */
export function refetchAfterResync(dispatch: (action: unknown) => unknown): () => void {
  return onLiveResynced((kind) => void dispatch(api.util.invalidateTags(kind === 'refetch' ? ['Ticket', 'Stats', 'Presence'] : ['Presence'])));
}
