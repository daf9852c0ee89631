import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { useLoginMutation } from './authApi';
import { startSession } from '../../entities/session/session';

/** Sign-in (docs/product.md section 2): e-mail and password, both required; 'Login failed' when the server gives no reason. */
export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [login, { isLoading }] = useLoginMutation();
  const dispatch = useAppDispatch();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      startSession(dispatch, await login({ email, password }).unwrap());
    } catch (failure) {
      setError(errorMessage(failure, 'Login failed'));
    }
  };

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="login-title">
        <div className="auth-brand">
          <Icon name="bolt" size={28} />
        </div>
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
        <button type="submit" className="button button-primary button-block" disabled={isLoading}>
          {isLoading ? 'Signing in...' : 'Sign in'}
        </button>
        <p className="muted auth-switch">
          No account yet? <Link to="/register">Create one</Link>
        </p>
      </form>
    </main>
  );
}
