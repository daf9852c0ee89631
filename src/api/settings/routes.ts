import type { Router } from 'express';
import { maskToken } from '../../domain/settings/settings';
import {
  MASKED_PASSWORD,
  NO_MAILBOX_MESSAGE,
  NO_TOKEN_MESSAGE,
  TELEGRAM_TOKEN,
  mailboxTestSchema,
  telegramTestSchema,
  updateSettingsSchema,
} from '#contract/settings';
import { ValidationError } from '#contract/errors';
import { TelegramApi, telegramErrorText } from '../../platform/telegram';
import { type SystemSettingsView, loadSystemSettings } from '../../projections/settings';
import type { AppDeps } from '../../app/deps';
import { invalidToken, resolveMailboxPassword, updateSystemSettings } from '../../app/settings/service';
import { imapErrorText, mailboxAccessOf, testMailbox } from '../../platform/imap';
import { commandContext, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import type { SetupStatus, SystemSettings } from '#contract/responses';
import { open, scope } from '../http/scopes';
import { CATEGORIES } from '../../projections/categories';
import { USERS } from '../../projections/users';
import { TICKETS } from '../../projections/tickets';
import { loadSlaSettings } from '../../projections/sla';

/** Settings as the API shows them: everything, with the bot token masked and the mailbox password never shown. */
const toSettings = ({ _id: _i, _revision: _r, ...settings }: SystemSettingsView): SystemSettings => ({
  ...settings,
  telegramBotToken: maskToken(settings.telegramBotToken),
  mailboxPassword: settings.mailboxPassword ? MASKED_PASSWORD : '',
});

export const settingsRoutes = (deps: AppDeps) => (router: Router) => {
  const telegram = new TelegramApi(deps.config.TELEGRAM_API_ROOT);

  /** What every screen (and a visitor) may know: the name, contact and upload limits. */
  router.get('/settings/public', open, async (_req, res) => {
    const { systemName, supportEmail, maintenanceMode, maxFileSize, maxFiles } = await loadSystemSettings(deps.readStore);
    res.json({ settings: { systemName, supportEmail, maintenanceMode, maxFileSize, maxFiles } });
  });

  router.get('/settings/setup', scope('admin'), requireRole('admin'), async (_req, res) => {
    const [categories, agents, settings, sla, tickets] = await Promise.all([
      deps.readStore.collection(CATEGORIES).count({ isActive: true }),
      deps.readStore.collection(USERS).count({ role: 'agent', isActive: true }),
      loadSystemSettings(deps.readStore),
      loadSlaSettings(deps.readStore),
      deps.readStore.collection(TICKETS).count(),
    ]);
    const setup: SetupStatus = {
      categories,
      agents,
      telegramBot: settings.telegramBotToken !== '',
      servicePolicies: sla.policies.length,
      supportEmail: settings.supportEmail !== '',
      tickets,
    };
    res.json({ setup });
  });

  router.get('/settings', scope('admin'), requireRole('admin'), async (_req, res) => {
    res.json({ settings: toSettings(await loadSystemSettings(deps.readStore)) });
  });

  router.put('/settings', scope('admin'), requireRole('admin'), async (req, res) => {
    const input = parse(updateSettingsSchema, req.body);
    await updateSystemSettings(deps, input, commandContext(deps, req));
    res.json({ settings: toSettings(await loadSystemSettings(deps.readStore)) });
  });

  router.get('/settings/telegram/status', scope('admin'), requireRole('admin'), async (_req, res) => {
    const { telegramBotToken } = await loadSystemSettings(deps.readStore);
    if (!telegramBotToken) return void res.json({ status: 'inactive', error: 'No Telegram bot token is set' });
    try {
      const bot = await telegram.getMe(telegramBotToken);
      res.json({ status: 'active', botUsername: bot.username });
    } catch (error) {
      res.json({ status: 'error', error: telegramErrorText(error) });
    }
  });

  /** Tests the token typed in the form (or the stored one when the masked value comes back) with getMe. */
  router.post('/settings/telegram/test', scope('admin'), requireRole('admin'), async (req, res) => {
    const { telegramBotToken: typed } = parse(telegramTestSchema, req.body);
    const { telegramBotToken: stored } = await loadSystemSettings(deps.readStore);
    const token = typed === undefined || typed === maskToken(stored) ? stored : typed;
    if (!token) throw new ValidationError(NO_TOKEN_MESSAGE, [{ path: 'telegramBotToken', message: NO_TOKEN_MESSAGE }]);
    if (!TELEGRAM_TOKEN.test(token)) throw invalidToken();
    try {
      const bot = await telegram.getMe(token);
      res.json({ success: true, bot });
    } catch (error) {
      res.json({ success: false, error: telegramErrorText(error) });
    }
  });

  /**
   * Signs in to the mailbox the form describes (what is not sent, or the masked password, comes from
   * the stored settings) and opens its folder, as "Test Bot" does for Telegram (docs/email.md).
   */
  router.post('/settings/mailbox/test', scope('admin'), requireRole('admin'), async (req, res) => {
    const typed = parse(mailboxTestSchema, req.body);
    const stored = await loadSystemSettings(deps.readStore);
    const merged = { ...stored, ...typed, mailboxPassword: resolveMailboxPassword(typed.mailboxPassword, stored.mailboxPassword) };
    if (!merged.mailboxHost) throw new ValidationError(NO_MAILBOX_MESSAGE, [{ path: 'mailboxHost', message: NO_MAILBOX_MESSAGE }]);
    try {
      const found = await testMailbox(mailboxAccessOf(merged));
      res.json({ success: true, folder: merged.mailboxFolder, ...found });
    } catch (error) {
      res.json({ success: false, error: imapErrorText(error) });
    }
  });
};
