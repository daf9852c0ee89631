import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import type { AppDispatch } from '../../app/store';
import { toastShown } from '../../components/toastsSlice';
import { connectLive, disconnectLive, onLive } from '../../lib/live';
import { tokens } from '../../lib/tokens';
import { profile, useLogoutMutation } from './authApi';
import { type User, signedIn, signedOut } from './sessionSlice';

/**
 * Restores a stored session at start (spec.md section 4): loading the profile with the stored tokens;
 * if that fails, the tokens are cleared and the visitor is anonymous.
 */
export async function restoreSession(dispatch: AppDispatch): Promise<void> {
  if (!tokens.access()) return void dispatch(signedOut());
  const result = await dispatch(profile.initiate(undefined, { subscribe: false, forceRefetch: true }));
  if (result.data) {
    dispatch(signedIn(result.data.user));
    connectLive();
  } else {
    tokens.clear();
    dispatch(signedOut());
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
