import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { LoadingScreen } from '../../components/ui';
import { type Role, selectSession } from '../../entities/session/sessionSlice';

interface FromState {
  from?: { pathname: string; search?: string };
}

/**
 * docs/product.md section 2: anonymous visitors go to /login (and come back after signing in); a signed-in
 * user lacking the role goes to /admin if an admin, otherwise to /dashboard; a loading screen shows
 * while the session is restored. `roles` is one role or a list.
 */
export function RequireRole({ roles, children }: { roles?: Role | Role[]; children: ReactNode }) {
  const session = useAppSelector(selectSession);
  const location = useLocation();
  if (session.status === 'loading') return <LoadingScreen />;
  if (session.status === 'anonymous')
    return <Navigate to="/login" replace state={{ from: { pathname: location.pathname, search: location.search } } satisfies FromState} />;
  const allowed = roles === undefined || (Array.isArray(roles) ? roles : [roles]).includes(session.user.role);
  if (!allowed) return <Navigate to={session.user.role === 'admin' ? '/admin' : '/dashboard'} replace />;
  return children;
}

/** Sign-in and registration: a signed-in user goes on to where they were headed, else /dashboard. */
export function PublicOnly({ children }: { children: ReactNode }) {
  const session = useAppSelector(selectSession);
  const from = (useLocation().state as FromState | null)?.from;
  if (session.status === 'loading') return <LoadingScreen />;
  if (session.status === 'authenticated') return <Navigate to={from ? `${from.pathname}${from.search ?? ''}` : '/dashboard'} replace />;
  return children;
}
