import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { registerSchema } from '#contract/users';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon, type IconName } from '../../components/icons';
import { type Registration, useRegisterMutation } from './authApi';
import { startSession } from '../../entities/session/session';

/** docs/product.md section 1: what the registration screen advertises. */
export const FEATURES: Array<{ icon: IconName; title: string; text: string }> = [
  { icon: 'ticket', title: 'Ticket tracking', text: 'Follow every request from open to resolved.' },
  { icon: 'live', title: 'Live chat', text: 'Talk to our support team in real time.' },
  { icon: 'paperclip', title: 'Attachments', text: 'Share screenshots, PDFs and documents.' },
  { icon: 'telegram', title: 'Telegram bot', text: 'Open and follow tickets from Telegram.' },
  { icon: 'canned', title: 'E-mail notifications', text: 'Hear about replies and status changes by e-mail.' },
];

type Form = Registration & { confirmPassword: string };
type Field = keyof Form;
const EMPTY: Form = { firstName: '', lastName: '', username: '', email: '', password: '', confirmPassword: '' };

/**
 * The registration rules of docs/product.md section 5, with the server's own schema so both give the same
 * messages: every field required, password at least 6 characters, confirmation matching.
 */
export function validateRegistration(form: Form): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  const { confirmPassword, ...registration } = form;
  const parsed = registerSchema.safeParse(registration);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as Field;
      errors[field] ??= issue.message;
    }
  }
  if (!confirmPassword) errors.confirmPassword = 'Please confirm your password';
  else if (confirmPassword !== form.password) errors.confirmPassword = 'Passwords do not match';
  return errors;
}

const FIELDS: Array<{ name: Field; label: string; type: string; autoComplete: string }> = [
  { name: 'firstName', label: 'First name', type: 'text', autoComplete: 'given-name' },
  { name: 'lastName', label: 'Last name', type: 'text', autoComplete: 'family-name' },
  { name: 'username', label: 'Username', type: 'text', autoComplete: 'username' },
  { name: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { name: 'password', label: 'Password', type: 'password', autoComplete: 'new-password' },
  { name: 'confirmPassword', label: 'Confirm password', type: 'password', autoComplete: 'new-password' },
];

export function RegisterPage() {
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [register, { isLoading }] = useRegisterMutation();
  const dispatch = useAppDispatch();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const found = validateRegistration(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const { confirmPassword: _confirmation, ...registration } = form;
    try {
      startSession(dispatch, await register(registration).unwrap());
    } catch (failure) {
      setError(errorMessage(failure, 'Registration failed'));
    }
  };

  return (
    <main className="auth-page">
      <div className="register-layout">
        <section className="register-pitch" aria-labelledby="features-title">
          <h2 id="features-title">Everything you need to get help</h2>
          <ul className="feature-list">
            {FEATURES.map((feature) => (
              <li key={feature.title}>
                <Icon name={feature.icon} size={22} />
                <div>
                  <strong>{feature.title}</strong>
                  <p className="muted">{feature.text}</p>
                </div>
              </li>
            ))}
          </ul>
        </section>
        <form className="card auth-card" onSubmit={submit} noValidate aria-labelledby="register-title">
          <h1 id="register-title">Create your account</h1>
          {error && (
            <div role="alert" className="banner banner-error">
              {error}
            </div>
          )}
          <div className="form-grid">
            {FIELDS.map((field) => (
              <div key={field.name} className={`field ${field.name === 'email' || field.name === 'username' ? 'field-wide' : ''}`}>
                <label htmlFor={field.name}>{field.label}</label>
                <input
                  id={field.name}
                  type={field.type}
                  autoComplete={field.autoComplete}
                  required
                  value={form[field.name]}
                  aria-invalid={errors[field.name] ? true : undefined}
                  aria-describedby={errors[field.name] ? `${field.name}-error` : undefined}
                  onChange={(e) => setForm((current) => ({ ...current, [field.name]: e.target.value }))}
                />
                {errors[field.name] && (
                  <span id={`${field.name}-error`} className="field-error">
                    {errors[field.name]}
                  </span>
                )}
              </div>
            ))}
          </div>
          <button type="submit" className="button button-primary button-block" disabled={isLoading}>
            {isLoading ? 'Creating account...' : 'Create account'}
          </button>
          <p className="muted auth-switch">
            Already have an account? <Link to="/login">Sign in</Link>
          </p>
        </form>
      </div>
    </main>
  );
}
