import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { setPasswordSchema } from '#contract/users';
import { errorMessage } from '../../app/api';
import { useSetPasswordMutation } from './authApi';

type Field = 'password' | 'confirmPassword';

/** The registration's password rules and messages (docs/product.md section 5), from the server's own schema. */
export function validateNewPassword(token: string, password: string, confirmPassword: string): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  const parsed = setPasswordSchema.safeParse({ token: token || 'missing', password });
  if (!parsed.success) errors.password = parsed.error.issues.find((issue) => issue.path[0] === 'password')?.message;
  if (!errors.password) delete errors.password;
  if (!confirmPassword) errors.confirmPassword = 'Please confirm your password';
  else if (confirmPassword !== password) errors.confirmPassword = 'Passwords do not match';
  return errors;
}

/**
 * The page of an e-mailed password link (docs/identity.md): the token is in the address's fragment
 * (`#token=...`), which browsers never send to the server, so no access log holds it.
 */
export function SetPasswordPage() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [send, { isLoading }] = useSetPasswordMutation();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const found = validateNewPassword(token, password, confirmPassword);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      await send({ token, password }).unwrap();
      setDone(true);
    } catch (failure) {
      setError(errorMessage(failure, 'Could not set your password'));
    }
  };

  if (!token || done)
    return (
      <main className="auth-page">
        <div className="card auth-card">
          <h1>{done ? 'Your password is set' : 'This link is not complete'}</h1>
          <p className="muted">
            {done ? 'Sign in with your e-mail address and your new password.' : 'Open the link from your e-mail again, or ask us for a new one.'}
          </p>
          <Link className="button button-primary button-block" to="/login">
            Sign in
          </Link>
        </div>
      </main>
    );

  const field = (name: Field, label: string, value: string, change: (value: string) => void) => (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        type="password"
        autoComplete="new-password"
        required
        value={value}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `${name}-error` : undefined}
        onChange={(e) => change(e.target.value)}
      />
      {errors[name] && (
        <span id={`${name}-error`} className="field-error">
          {errors[name]}
        </span>
      )}
    </div>
  );

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} noValidate aria-labelledby="set-password-title">
        <h1 id="set-password-title">Set your password</h1>
        {error && (
          <div role="alert" className="banner banner-error">
            {error}
          </div>
        )}
        {field('password', 'Password', password, setPassword)}
        {field('confirmPassword', 'Confirm password', confirmPassword, setConfirmPassword)}
        <button type="submit" className="button button-primary button-block" disabled={isLoading}>
          {isLoading ? 'Saving...' : 'Set password'}
        </button>
      </form>
    </main>
  );
}
