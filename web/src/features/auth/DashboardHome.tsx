import { Navigate } from 'react-router';
import { useProfileQuery } from './authApi';

/** The dashboard's greeting (spec.md section 2); the statistics and ticket cards come with the tickets. */
export function DashboardHome() {
  const { data, isLoading, isError } = useProfileQuery();
  if (isLoading) return <p className="loading">Loading dashboard...</p>;
  if (isError || !data?.user) return <Navigate to="/login" replace />;
  return (
    <main className="page">
      <h1>Welcome back, {data.user.firstName}!</h1>
      <p className="muted">Here&apos;s what&apos;s happening with your support system today</p>
    </main>
  );
}
