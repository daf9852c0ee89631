import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import type { AppDispatch } from '../../app/store';
import { toastShown } from '../../components/toastsSlice';
import { connectLive, disconnectLive, onLive } from '../../lib/live';
import { tokens } from '../../lib/tokens';
import { profile, useLogoutMutation } from './api';
import { type User, signedIn, signedOut } from './sessionSlice';

/** Waits between tries of a profile call that got no answer: 0.5 s, doubling up to 8 s. */
const restoreDelay = (attempt: number) => Math.min(500 * 2 ** attempt, 8000);

/**
 * Restores a stored session at start (docs/product.md section 4): loading the profile with the stored tokens.
 * Only a refusal (401 or 403 once the refresh was tried) clears the tokens; a call that got no answer
 * (aborted by a navigation, offline, a server error) is tried again, and the session stays loading.
 */
export async function restoreSession(dispatch: AppDispatch): Promise<void> {
  if (!tokens.access()) return void dispatch(signedOut());
  for (let attempt = 0; ; attempt++) {
    const result = await dispatch(profile.initiate(undefined, { subscribe: false, forceRefetch: true }));
    if (result.data) {
      dispatch(signedIn(result.data.user));
      connectLive();
      return;
    }
    const status = (result.error as { status?: unknown } | undefined)?.status;
    if (status === 401 || status === 403 || !tokens.access()) {
      tokens.clear();
      dispatch(signedOut());
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, restoreDelay(attempt)));
  }
}

/** After a sign-in or registration: keep the tokens, open the live channel, enter the app. */
export function startSession(dispatch: AppDispatch, answer: { user: User; accessToken: string; refreshToken: string }): void {
  tokens.save(answer.accessToken, answer.refreshToken);
  dispatch(signedIn(answer.user));
  connectLive();
}

/**
 * The server ends a live connection when its session ends (deactivation, password change, logout
 * elsewhere): the app signs out too, rather than failing call by call.
 */
export function followSessionEnd(dispatch: AppDispatch): () => void {
  return onLive('session_ended', () => {
    tokens.clear();
    disconnectLive();
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
    dispatch(toastShown('warning', 'Your session has ended. Please sign in again.'));
  });
}

/** Logout: revoke the refresh token, forget everything cached, close the live channel. */
export function useLogout(): () => Promise<void> {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [logout] = useLogoutMutation();
  return useCallback(async () => {
    const refreshToken = tokens.refresh();
    await logout({ refreshToken }).catch(() => undefined);
    tokens.clear();
    disconnectLive();
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
    await navigate('/login', { replace: true });
  }, [dispatch, logout, navigate]);
}
