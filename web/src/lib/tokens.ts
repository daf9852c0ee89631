/** Browser storage keys of spec.md section 9. */
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

let inFlight: Promise<boolean> | null = null;

/**
 * Spends the stored refresh token once for a new pair. The server ends the whole session when a
 * spent token comes back, so every tab must spend each token only once: one refresh at a time per
 * tab, one across tabs under a Web Lock, and a tab that waited uses the pair another tab got.
 */
export function refreshTokens(): Promise<boolean> {
  const presented = tokens.refresh();
  if (!presented) return Promise.resolve(false);
  const run = async () => {
    const current = tokens.refresh();
    if (!current) return false;
    if (current !== presented) return true;
    try {
      const response = await fetch('/api/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: current }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) return false;
      const body = (await response.json()) as { accessToken: string; refreshToken: string };
      tokens.save(body.accessToken, body.refreshToken);
      return true;
    } catch {
      return false;
    }
  };
  inFlight ??= (navigator.locks ? navigator.locks.request('support-desk-token-refresh', run) : run()).finally(() => {
    inFlight = null;
  });
  return inFlight;
}
