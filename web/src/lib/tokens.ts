/** Browser storage keys of docs/product.md section 9. */
export const tokens = {
  access: () => localStorage.getItem('accessToken'),
  refresh: () => localStorage.getItem('refreshToken'),
  save(accessToken: string, refreshToken?: string) {
    localStorage.setItem('accessToken', accessToken);
    if (refreshToken) localStorage.setItem('refreshToken', refreshToken);
  },
  clear() {
    localStorage.removeItem('accessToken');
    localStorage.removeItem('refreshToken');
  },
};

/** refreshed: a new pair is stored; refused: the server said no (sign in again); unavailable: no answer (try later). */
export type RefreshOutcome = 'refreshed' | 'refused' | 'unavailable';

let inFlight: Promise<RefreshOutcome> | null = null;

/**
 * Spends the stored refresh token once for a new pair. The server ends the whole session when a
 * spent token comes back, so every tab must spend each token only once: one refresh at a time per
 * tab, one across tabs under a Web Lock, and a tab that waited uses the pair another tab got.
 * Only a refusal is final: an aborted call (a page navigating away), a lost network or a server
 * error leaves the tokens as they are, so the session survives them.
 */
export function refreshTokens(): Promise<RefreshOutcome> {
  const presented = tokens.refresh();
  if (!presented) return Promise.resolve('refused');
  const run = async (): Promise<RefreshOutcome> => {
    const current = tokens.refresh();
    if (!current) return 'refused';
    if (current !== presented) return 'refreshed';
    try {
      const response = await fetch('/api/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: current }),
        signal: AbortSignal.timeout(10_000),
      });
      if (isRefusal(response.status)) return 'refused';
      if (!response.ok) return 'unavailable';
      const body = (await response.json()) as { accessToken: string; refreshToken: string };
      tokens.save(body.accessToken, body.refreshToken);
      return 'refreshed';
    } catch {
      return 'unavailable';
    }
  };
  inFlight ??= (navigator.locks ? navigator.locks.request('support-desk-token-refresh', run) : run()).finally(() => {
    inFlight = null;
  });
  return inFlight;
}

/** A refusal that no retry can change: the credentials themselves were rejected. */
const isRefusal = (status: unknown) => status === 400 || status === 401 || status === 403;
