import { randomBytes } from 'node:crypto';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { createUser, userOwners } from '../identity/service';
import { type Claim, claim } from '../reservations';
import { ConflictError } from '#contract/errors';
import { userDecider } from '../../domain/user/decide';
import { userStream } from '../../domain/user/user';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import type { Actor } from '../../platform/eventstore/port';
import { escapeRegex } from '../../platform/readstore/port';
import { USERS, type UserView } from '../../projections/users';

/** The Telegram user as updates describe them. */
export interface TelegramPerson {
  id: number;
  username?: string;
  first_name: string;
  last_name?: string;
  is_bot?: boolean;
}

/** Who acts for a Telegram user not yet (or not necessarily) linked to an account: access attempts, the form. */
export const telegramUserActor = (person: Pick<TelegramPerson, 'id'>): Actor => ({ userId: `telegram:${person.id}`, role: 'telegram', platform: 'telegram' });

/** Accounts made for Telegram users get an address that can never receive mail. */
const TELEGRAM_EMAIL_DOMAIN = 'telegram.invalid';
export const isTelegramOnlyEmail = (email: string) => email.endsWith(`@${TELEGRAM_EMAIL_DOMAIN}`);

const NAME_MAX = 50;
const clean = (text: string | undefined, fallback: string) => {
  const trimmed = (text ?? '')
    .replace(/\p{Cc}/gu, ' ')
    .trim()
    .slice(0, NAME_MAX);
  return trimmed === '' ? fallback : trimmed;
};

const linkClaim = (telegramId: string): Claim => ({
  kind: 'telegram',
  value: telegramId,
  conflictMessage: 'This Telegram user is already linked',
  conflictCode: 'TELEGRAM_LINKED',
});

/**
 * The customer account a Telegram user acts as (docs/product.md section 3: linked, created on first use).
 * A customer whose telegramUsername an admin filled in is that user's account; otherwise a customer
 * is created. The Telegram ID is claimed in a reservation stream first, so two updates racing on
 * two workers still end with one account.
 */
export async function customerForTelegram(deps: AppDeps, person: TelegramPerson, context: CommandContext): Promise<UserView> {
  const telegramId = String(person.id);
  const users = deps.readStore.collection<UserView>(USERS);
  const linked = await users.findOne({ telegramId });
  if (linked) return linked;

  const named = person.username
    ? await users.findOne({ role: 'customer', telegramId: null, telegramUsername: { $regex: `^${escapeRegex(person.username)}$`, $options: 'i' } })
    : null;
  const userId = named?._id ?? deps.newId();
  try {
    const fence = await claim(deps, userId, linkClaim(telegramId), context, userOwners);
    if (!named && (await loadState(deps.events, userStream(userId), userDecider)).state.status === 'none') {
      await createTelegramCustomer(deps, person, userId, context);
    }
    const result = await handleCommand(
      deps.events,
      userStream(userId),
      userDecider,
      { type: 'LinkTelegramAccount', userId, telegramId, telegramUsername: person.username ?? null },
      context,
      { fences: [fence] },
    );
    await readYourWrites(deps, result.position);
  } catch (error) {
    // Another update of this Telegram user links it (or did): wait for that link.
    if (!(error instanceof ConflictError && error.code === 'TELEGRAM_LINKED')) throw error;
  }
  return waitForLink(deps, telegramId);
}

/** `tg_<id>` as username (and a never-deliverable address); a suffix when someone already took it. */
async function createTelegramCustomer(deps: AppDeps, person: TelegramPerson, userId: string, context: CommandContext): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const username = attempt === 0 ? `tg_${person.id}` : `tg_${person.id}_${randomBytes(3).toString('hex')}`;
    try {
      await createUser(
        deps,
        {
          username,
          email: `${username}@${TELEGRAM_EMAIL_DOMAIN}`,
          firstName: clean(person.first_name, 'Telegram'),
          lastName: clean(person.last_name, 'User'),
          password: randomBytes(24).toString('base64url'),
          role: 'customer',
          isActive: true,
          telegramUsername: person.username ?? null,
        },
        context,
        userId,
      );
      return;
    } catch (error) {
      const taken = error instanceof ConflictError && (error.code === 'USERNAME_TAKEN' || error.code === 'EMAIL_TAKEN');
      if (!taken || attempt >= 3) throw error;
    }
  }
}

async function waitForLink(deps: AppDeps, telegramId: string): Promise<UserView> {
  const users = deps.readStore.collection<UserView>(USERS);
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = await users.findOne({ telegramId });
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Telegram user ${telegramId} is being linked by another worker; try again`);
}
