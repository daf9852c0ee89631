import { Component, type ReactNode, Suspense, useEffect } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Toasts } from '../components/Toasts';
import { LoadingScreen } from '../components/ui';
import { PublicOnly, RequireRole } from '../features/auth/guards';
import { followSessionEnd, restoreSession } from '../entities/session/session';
import { lazyPage } from '../lib/lazyPage';
import { applyTheme, selectTheme } from '../lib/theme';
import { refetchAfterResync } from './api';
import { useAppDispatch, useAppSelector } from './hooks';
import { Layout } from './shell/Layout';

const LoginPage = lazyPage(
  () => import('../features/auth/LoginPage'),
  (m) => m.LoginPage,
);
const RegisterPage = lazyPage(
  () => import('../features/auth/RegisterPage'),
  (m) => m.RegisterPage,
);
const SetPasswordPage = lazyPage(
  () => import('../features/auth/SetPasswordPage'),
  (m) => m.SetPasswordPage,
);
const DashboardPage = lazyPage(
  () => import('../features/tickets/DashboardPage'),
  (m) => m.DashboardPage,
);
const LiveTicketsPage = lazyPage(
  () => import('../features/tickets/LiveTicketsPage'),
  (m) => m.LiveTicketsPage,
);
const TicketPage = lazyPage(
  () => import('../features/tickets/TicketPage'),
  (m) => m.TicketPage,
);
const ProfilePage = lazyPage(
  () => import('../features/profile/ProfilePage'),
  (m) => m.ProfilePage,
);
const MacrosPage = lazyPage(
  () => import('../features/macros/MacrosPage'),
  (m) => m.MacrosPage,
);
const CannedMessagesPage = lazyPage(
  () => import('../features/canned/CannedMessagesPage'),
  (m) => m.CannedMessagesPage,
);
const AdminPage = lazyPage(
  () => import('../features/admin/AdminPage'),
  (m) => m.AdminPage,
);
const SettingsPage = lazyPage(
  () => import('../features/settings/SettingsPage'),
  (m) => m.SettingsPage,
);
const WhitelistPage = lazyPage(
  () => import('../features/whitelist/WhitelistPage'),
  (m) => m.WhitelistPage,
);

/** A chunk that fails or times out gets a clear message and a way out, not a blank page. */
class ChunkBoundary extends Component<{ children: ReactNode }, { failed: Error | null }> {
  override state = { failed: null as Error | null };
  static getDerivedStateFromError(failed: Error) {
    return { failed };
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="page">
        <div className="banner banner-error" role="alert">
          {this.state.failed.message || 'This page could not be loaded'}
        </div>
        <button type="button" className="button button-primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}

const STAFF = ['agent', 'admin'] as const;

export function App() {
  const dispatch = useAppDispatch();
  const theme = useAppSelector(selectTheme);
  useEffect(() => {
    void restoreSession(dispatch);
    const stops = [followSessionEnd(dispatch), refetchAfterResync(dispatch)];
    return () => stops.forEach((stop) => stop());
  }, [dispatch]);
  useEffect(() => {
    applyTheme(theme);
    localStorage.setItem('theme', theme);
  }, [theme]);

  return (
    <ChunkBoundary>
      <Suspense fallback={<LoadingScreen />}>
        <Routes>
          <Route
            path="/login"
            element={
              <PublicOnly>
                <LoginPage />
              </PublicOnly>
            }
          />
          <Route
            path="/register"
            element={
              <PublicOnly>
                <RegisterPage />
              </PublicOnly>
            }
          />
          <Route path="/set-password" element={<SetPasswordPage />} />
          <Route
            element={
              <RequireRole>
                <Layout />
              </RequireRole>
            }
          >
            <Route path="/dashboard" element={<DashboardPage />} />
            <Route
              path="/live-tickets"
              element={
                <RequireRole roles={[...STAFF]}>
                  <LiveTicketsPage />
                </RequireRole>
              }
            />
            <Route path="/tickets/:ticketId" element={<TicketPage />} />
            <Route path="/profile" element={<ProfilePage />} />
            <Route
              path="/canned-messages"
              element={
                <RequireRole roles={[...STAFF]}>
                  <CannedMessagesPage />
                </RequireRole>
              }
            />
            <Route
              path="/macros"
              element={
                <RequireRole roles={[...STAFF]}>
                  <MacrosPage />
                </RequireRole>
              }
            />
            <Route
              path="/admin"
              element={
                <RequireRole roles="admin">
                  <AdminPage />
                </RequireRole>
              }
            />
            <Route
              path="/settings"
              element={
                <RequireRole roles="admin">
                  <SettingsPage />
                </RequireRole>
              }
            />
            <Route
              path="/telegram-whitelist"
              element={
                <RequireRole roles="admin">
                  <WhitelistPage />
                </RequireRole>
              }
            />
          </Route>
          <Route path="*" element={<Navigate to="/dashboard" replace />} />
        </Routes>
      </Suspense>
      <Toasts />
    </ChunkBoundary>
  );
}
