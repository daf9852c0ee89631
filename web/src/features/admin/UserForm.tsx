import { type FormEvent, useState } from 'react';
import { createUserSchema, updateUserSchema } from '#contract/users';
import { ROLES } from '#contract/users';
import { Banner, FormActions } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { AdminUser, UserInput } from './api';

const ROLE_LABELS: Record<AdminUser['role'], string> = { customer: 'Customer', agent: 'Agent', admin: 'Admin' };
export const roleLabel = (role: AdminUser['role']) => ROLE_LABELS[role];

/** docs/product.md section 5: the username is forced to lowercase letters, digits and underscores as it is typed. */
const cleanUsername = (typed: string) => typed.toLowerCase().replace(/[^a-z0-9_]/g, '');

interface Draft {
  firstName: string;
  lastName: string;
  username: string;
  email: string;
  password: string;
  role: AdminUser['role'];
  isActive: boolean;
}

/**
 * The user form of docs/product.md section 5, checked with the API's own schemas: names required (at most
 * 50), username 3 to 30, a valid e-mail, a password of at least 6 on create (blank on edit keeps the
 * current one and is not sent), a role, active by default.
 */
export function UserForm({
  user,
  saving,
  error,
  isSelf = false,
  onSubmit,
  onCancel,
}: {
  user: AdminUser | null;
  saving: boolean;
  error: string | null;
  isSelf?: boolean;
  onSubmit: (input: UserInput) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(
    user
      ? {
          firstName: user.firstName,
          lastName: user.lastName,
          username: user.username,
          email: user.email,
          password: '',
          role: user.role,
          isActive: user.isActive,
        }
      : { firstName: '', lastName: '', username: '', email: '', password: '', role: 'customer', isActive: true },
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { password, ...rest } = draft;
    const input = user ? { ...rest, ...(password ? { password } : {}) } : draft;
    const checked = checkWith(user ? updateUserSchema : createUserSchema, input);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(input);
  };

  const field = (name: 'firstName' | 'lastName' | 'username' | 'email' | 'password', label: string, props: Record<string, unknown> = {}) => (
    <div className="field">
      <label htmlFor={`user-${name}`}>{label}</label>
      <input
        id={`user-${name}`}
        value={draft[name]}
        aria-invalid={errors[name] ? true : undefined}
        onChange={(e) => set({ [name]: name === 'username' ? cleanUsername(e.target.value) : e.target.value })}
        {...props}
      />
      {errors[name] && <span className="field-error">{errors[name]}</span>}
    </div>
  );

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <div className="form-row">
        {field('firstName', 'First Name', { maxLength: 50, autoComplete: 'off' })}
        {field('lastName', 'Last Name', { maxLength: 50, autoComplete: 'off' })}
      </div>
      {field('username', 'Username', { maxLength: 30, autoComplete: 'off' })}
      {field('email', 'Email', { type: 'email', autoComplete: 'off' })}
      {field('password', user ? 'Password (leave blank to keep the current one)' : 'Password', { type: 'password', autoComplete: 'new-password' })}
      <div className="form-row">
        <div className="field">
          <label htmlFor="user-role">Role</label>
          <select
            id="user-role"
            value={draft.role}
            disabled={isSelf}
            title={isSelf ? 'You cannot change your own role' : undefined}
            onChange={(e) => set({ role: e.target.value as AdminUser['role'] })}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
          {errors.role && <span className="field-error">{errors.role}</span>}
        </div>
        <label className="toggle field-toggle">
          <input type="checkbox" checked={draft.isActive} disabled={isSelf} onChange={(e) => set({ isActive: e.target.checked })} />
          Active
        </label>
      </div>
      <FormActions saving={saving} submitLabel={user ? 'Update User' : 'Create User'} onCancel={onCancel} />
    </form>
  );
}
