import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../app/api';
import { tokens } from '../../lib/tokens';
import { useLoginMutation } from './authApi';

export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [login, { isLoading }] = useLoginMutation();
  const navigate = useNavigate();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const result = await login({ email, password }).unwrap();
      tokens.save(result.accessToken, result.refreshToken);
      await navigate('/dashboard', { replace: true });
    } catch (failure) {
      setError(errorMessage(failure, 'Login failed'));
    }
  };

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in</h1>
        <p className="muted">Customer Support System</p>
        {error && (
          <div role="alert" className="banner banner-error">
            {error}
          </div>
        )}
        <label htmlFor="email">Email</label>
        <input id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <button type="submit" className="button-primary" disabled={isLoading}>
          {isLoading ? 'Signing in...' : 'Sign in'}
        </button>
        <p className="muted">
          No account yet? <Link to="/register">Create one</Link>
        </p>
      </form>
    </main>
  );
}
