import type { Router } from 'express';
import { updateBotSettingsSchema } from '#contract/botSettings';
import { createBotCommandSchema, listBotCommandsQuery, updateBotCommandSchema } from '#contract/botCommands';
import { NotFoundError } from '#contract/errors';
import { BOT_COMMANDS, type BotCommandView, toBotCommand } from '../../projections/botCommands';
import { type BotSettingsView, loadBotSettings } from '../../projections/settings';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import { createBotCommand, deleteBotCommand, resetBotMessages, syncBotCommands, updateBotCommand, updateBotMessages } from '../../app/bot/service';
import { scope } from '../http/scopes';

const toBotSettings = ({ messages, lastSyncedAt, updatedAt }: BotSettingsView) => ({ messages, lastSyncedAt, updatedAt });

/** Bot commands and bot messages (docs/product.md section 6: admins). */
export const botRoutes = (deps: AppDeps) => (router: Router) => {
  const commands = () => deps.readStore.collection<BotCommandView>(BOT_COMMANDS);
  const load = async (id: string) => {
    const found = await commands().findOne({ _id: id });
    if (!found) throw new NotFoundError('Bot command');
    return toBotCommand(found);
  };
  const admin = requireRole('admin');

  router.get('/bot-commands', scope('admin'), admin, async (req, res) => {
    const { active, ...page } = parse(listBotCommandsQuery, req.query);
    const { items, pagination } = await findPage(commands(), active === undefined ? {} : { isActive: active === 'true' }, { order: 1, command: 1 }, page);
    res.json({ commands: items.map(toBotCommand), pagination });
  });

  router.get('/bot-commands/:id', scope('admin'), admin, async (req, res) => {
    res.json({ command: await load(req.params.id as string) });
  });

  router.post('/bot-commands', scope('admin'), admin, async (req, res) => {
    const fields = parse(createBotCommandSchema, req.body);
    const commandId = deps.newId();
    await createBotCommand(deps, commandId, fields, commandContext(deps, req));
    res.status(201).json({ command: await load(commandId) });
  });

  router.put('/bot-commands/:id', scope('admin'), admin, async (req, res) => {
    const changes = parse(updateBotCommandSchema, req.body);
    const commandId = req.params.id as string;
    await updateBotCommand(deps, commandId, changes, commandContext(deps, req));
    res.json({ command: await load(commandId) });
  });

  router.delete('/bot-commands/:id', scope('admin'), admin, async (req, res) => {
    await deleteBotCommand(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });

  /** Publishes the active commands to Telegram (setMyCommands) and records that it did. */
  router.post('/bot-commands/sync', scope('admin'), admin, async (req, res) => {
    const published = await syncBotCommands(deps, commandContext(deps, req));
    res.json({ success: true, synced: published.length, commands: published });
  });

  router.get('/bot-settings', scope('admin'), admin, async (_req, res) => {
    res.json({ settings: toBotSettings(await loadBotSettings(deps.readStore)) });
  });

  router.put('/bot-settings', scope('admin'), admin, async (req, res) => {
    const { messages } = parse(updateBotSettingsSchema, req.body);
    await updateBotMessages(deps, messages, commandContext(deps, req));
    res.json({ settings: toBotSettings(await loadBotSettings(deps.readStore)) });
  });

  router.post('/bot-settings/reset', scope('admin'), admin, async (req, res) => {
    await resetBotMessages(deps, commandContext(deps, req));
    res.json({ settings: toBotSettings(await loadBotSettings(deps.readStore)) });
  });
};
