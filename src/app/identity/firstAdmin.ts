import { randomBytes } from 'node:crypto';
import { ConflictError } from '#contract/errors';
import { USERS, type UserView } from '../../projections/users';
import type { AppDeps } from '../deps';
import { createUser } from './service';

export interface FirstAdmin {
  email: string;
  /** Present only when it was generated here: printed once, never stored in clear. */
  generatedPassword: string | null;
}

/** On a start that finds no admin, creates one from ADMIN_EMAIL / ADMIN_PASSWORD (or a generated password). */
export async function ensureFirstAdmin(deps: AppDeps): Promise<FirstAdmin | null> {
  const users = deps.readStore.collection<UserView>(USERS);
  if ((await users.count({ role: 'admin' })) > 0) return null;
  const email = deps.config.ADMIN_EMAIL.toLowerCase();
  if (await users.findOne({ email })) {
    throw new Error(`No admin exists and ADMIN_EMAIL (${email}) belongs to a user who is not one: set ADMIN_EMAIL to a free address`);
  }
  const generatedPassword = deps.config.ADMIN_PASSWORD ? null : randomBytes(12).toString('base64url');
  const context = { actor: { userId: 'system', role: 'system' as const, platform: 'system' as const }, now: deps.clock() };
  for (let attempt = 1; ; attempt++) {
    const username = attempt === 1 ? 'admin' : `admin_${attempt}`;
    try {
      await createUser(
        deps,
        {
          username,
          email,
          firstName: 'System',
          lastName: 'Administrator',
          role: 'admin',
          isActive: true,
          password: deps.config.ADMIN_PASSWORD ?? generatedPassword!,
        },
        context,
      );
      return { email, generatedPassword };
    } catch (error) {
      if (!(error instanceof ConflictError && error.code === 'USERNAME_TAKEN') || attempt >= 20) throw error;
    }
  }
}
