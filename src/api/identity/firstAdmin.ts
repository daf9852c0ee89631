import { randomBytes } from 'node:crypto';
import { USERS } from '../../projections/users';
import type { AppDeps } from '../deps';
import { createUser } from './service';

export interface FirstAdmin {
  email: string;
  /** Present only when it was generated here: printed once, never stored in clear. */
  generatedPassword: string | null;
}

/** On a start that finds no admin, creates one from ADMIN_EMAIL / ADMIN_PASSWORD (or a generated password). */
export async function ensureFirstAdmin(deps: AppDeps): Promise<FirstAdmin | null> {
  if ((await deps.readStore.collection(USERS).count({ role: 'admin' })) > 0) return null;
  const email = deps.config.ADMIN_EMAIL.toLowerCase();
  const generatedPassword = deps.config.ADMIN_PASSWORD ? null : randomBytes(12).toString('base64url');
  await createUser(
    deps,
    {
      profile: { username: 'admin', email, firstName: 'System', lastName: 'Administrator' },
      role: 'admin',
      isActive: true,
      password: deps.config.ADMIN_PASSWORD ?? generatedPassword!,
    },
    { actor: { userId: 'system', role: 'system', platform: 'system' }, now: deps.clock() },
  );
  return { email, generatedPassword };
}
