import { SYSTEM_SETTINGS_STREAM, maskToken } from '../../domain/settings/settings';
import type { SystemSettings } from '#contract/settings';
import { systemSettingsDecider } from '../../domain/settings/decide';
import { MASKED_PASSWORD, type SettingsUpdate, TELEGRAM_TOKEN } from '#contract/settings';
import { ValidationError } from '#contract/errors';
import type { CommandContext } from '../../platform/commands';
import { loadSystemSettings } from '../../projections/settings';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';

/** The refusal of a value that cannot be a bot token, when saving the settings or testing a token. */
export const invalidToken = () =>
  new ValidationError('That does not look like a Telegram bot token (it looks like 123456789:ABC-DEF...)', [
    { path: 'telegramBotToken', message: 'Invalid Telegram bot token' },
  ]);

/**
 * A token sent back exactly as it was shown (masked) keeps the stored one; an empty one clears it;
 * anything else must look like a bot token.
 */
function resolveToken(sent: string | undefined, stored: string): string | undefined {
  if (sent === undefined || sent === maskToken(stored)) return undefined;
  if (sent !== '' && !TELEGRAM_TOKEN.test(sent)) throw invalidToken();
  return sent;
}

/** The mailbox password is write-only: the mask it is shown as, sent back, keeps the stored one. */
export const resolveMailboxPassword = (sent: string | undefined, stored: string) => (sent === MASKED_PASSWORD ? stored : (sent ?? stored));

/** "Category for new mail" must name a category that can take a mail's ticket: active, asking no required field. */
async function checkMailCategory(deps: AppDeps, categoryId: string | undefined): Promise<void> {
  if (!categoryId) return;
  const refuse = (message: string) => new ValidationError(message, [{ path: 'mailboxCategory', message }]);
  const category = await deps.readStore.collection<CategoryView>(CATEGORIES).findOne({ _id: categoryId });
  if (!category) throw refuse('Category for new mail: no such category');
  if (!category.isActive) throw refuse(`Category for new mail: "${category.name}" is archived; choose an active category`);
  if (category.customFields.some((field) => field.required))
    throw refuse(`Category for new mail: "${category.name}" asks for required fields a mail cannot fill`);
}

/** Changes the system settings; they hold from the moment this answers. */
export async function updateSystemSettings(deps: AppDeps, input: SettingsUpdate, context: CommandContext): Promise<void> {
  const current = await loadSystemSettings(deps.readStore);
  await checkMailCategory(deps, input.mailboxCategory);
  const changes: Partial<SystemSettings> = {
    ...input,
    telegramBotToken: resolveToken(input.telegramBotToken, current.telegramBotToken),
    mailboxPassword: input.mailboxPassword === MASKED_PASSWORD ? undefined : input.mailboxPassword,
  };
  await runCommand(deps, SYSTEM_SETTINGS_STREAM, systemSettingsDecider, { type: 'UpdateSystemSettings', changes }, context);
}
