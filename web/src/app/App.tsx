import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { tokens } from '../lib/tokens';

const LoginPage = lazy(() => import('../features/auth/LoginPage').then((m) => ({ default: m.LoginPage })));
const DashboardHome = lazy(() => import('../features/auth/DashboardHome').then((m) => ({ default: m.DashboardHome })));

const Protected = ({ children }: { children: ReactNode }) => (tokens.access() ? children : <Navigate to="/login" replace />);
const PublicOnly = ({ children }: { children: ReactNode }) => (tokens.access() ? <Navigate to="/dashboard" replace /> : children);

export function App() {
  return (
    <Suspense fallback={<p className="loading">Loading...</p>}>
      <Routes>
        <Route path="/login" element={<PublicOnly><LoginPage /></PublicOnly>} />
        <Route path="/dashboard" element={<Protected><DashboardHome /></Protected>} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Routes>
    </Suspense>
  );
}
