import { type BotCommandState, SYSTEM_COMMANDS, botCommandStream } from '../../domain/botCommand/botCommand';
import type { BotCommandFields } from '#contract/botCommands';
import { botCommandDecider } from '../../domain/botCommand/decide';
import { BOT_SETTINGS_STREAM } from '../../domain/botSettings/botSettings';
import type { BotMessages } from '#contract/botSettings';
import { botSettingsDecider } from '../../domain/botSettings/decide';
import { NO_TOKEN_MESSAGE } from '#contract/settings';
import { UpstreamError, ValidationError } from '#contract/errors';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { TelegramApi, telegramErrorText } from '../../platform/telegram';
import { BOT_COMMANDS, type BotCommandView } from '../../projections/botCommands';
import { loadSystemSettings } from '../../projections/settings';
import { runCommand, readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { type Claim, type Owners, release, withClaims } from '../reservations';

const nameClaim = (command: string): Claim => ({
  kind: 'botcommand',
  value: command,
  conflictMessage: `A command named /${command} already exists`,
  conflictCode: 'BOT_COMMAND_EXISTS',
});

const loadCommand = (deps: AppDeps, commandId: string) => loadState(deps.events, botCommandStream(commandId), botCommandDecider);

/** A command holds its name; deleting it lets the name go. */
const commandOwners: Owners<BotCommandState> = {
  stream: botCommandStream,
  decider: botCommandDecider,
  holds: (state, { value }) => state.status === 'existing' && state.command.toLowerCase() === value.toLowerCase(),
  gone: (state) => state.status === 'deleted',
};

/** Creates a command after claiming its name, so two commands can never share one; answers once the read models include it. */
export async function createBotCommand(deps: AppDeps, commandId: string, fields: BotCommandFields, context: CommandContext): Promise<void> {
  await readYourWrites(deps, await appendBotCommand(deps, commandId, fields, false, context));
}

async function appendBotCommand(deps: AppDeps, commandId: string, fields: BotCommandFields, isSystem: boolean, context: CommandContext): Promise<number> {
  const result = await withClaims(deps, commandId, [nameClaim(fields.command)], context, commandOwners, (fences) =>
    handleCommand(deps.events, botCommandStream(commandId), botCommandDecider, { type: 'CreateBotCommand', commandId, fields, isSystem }, context, { fences }),
  );
  return result.position;
}

/** A renamed command claims its new name first and frees the old one after. */
export async function updateBotCommand(deps: AppDeps, commandId: string, changes: Partial<BotCommandFields>, context: CommandContext): Promise<void> {
  const { state } = await loadCommand(deps, commandId);
  const renamed = state.status === 'existing' && changes.command !== undefined && changes.command !== state.command ? state.command : null;
  const claims = renamed !== null ? [nameClaim(changes.command!)] : [];
  const result = await withClaims(deps, commandId, claims, context, commandOwners, (fences) =>
    handleCommand(deps.events, botCommandStream(commandId), botCommandDecider, { type: 'UpdateBotCommand', commandId, changes }, context, { fences }),
  );
  if (renamed !== null) await release(deps, commandId, nameClaim(renamed), context);
  await readYourWrites(deps, result.position);
}

export async function deleteBotCommand(deps: AppDeps, commandId: string, context: CommandContext): Promise<void> {
  const result = await handleCommand(deps.events, botCommandStream(commandId), botCommandDecider, { type: 'DeleteBotCommand', commandId }, context);
  for (const event of result.events) if (event.type === 'BotCommandDeleted') await release(deps, commandId, nameClaim(event.data.command), context);
  await readYourWrites(deps, result.position);
}

/** Seeds the system commands on a start that lacks them; their fixed ids make this idempotent. */
export async function ensureSystemCommands(deps: AppDeps): Promise<void> {
  const context: CommandContext = { actor: { userId: 'system', role: 'system', platform: 'system' }, now: deps.clock() };
  let position = 0;
  for (const { commandId, ...fields } of SYSTEM_COMMANDS) {
    const { state } = await loadCommand(deps, commandId);
    if (state.status !== 'none') continue;
    position = Math.max(position, await appendBotCommand(deps, commandId, fields, true, context));
  }
  await readYourWrites(deps, position);
}

/** Publishes the active commands to Telegram (setMyCommands) and records that it did; answers what was published. */
export async function syncBotCommands(deps: AppDeps, context: CommandContext): Promise<Array<{ command: string; description: string }>> {
  const { telegramBotToken } = await loadSystemSettings(deps.readStore);
  if (!telegramBotToken) throw new ValidationError(NO_TOKEN_MESSAGE);
  const active = await deps.readStore.collection<BotCommandView>(BOT_COMMANDS).find({ isActive: true }, { sort: { order: 1, command: 1 } });
  const published = active.map(({ command, description }) => ({ command, description }));
  try {
    await new TelegramApi(deps.config.TELEGRAM_API_ROOT).setMyCommands(telegramBotToken, published);
  } catch (error) {
    throw new UpstreamError(`Telegram refused the commands: ${telegramErrorText(error)}`);
  }
  await runCommand(deps, BOT_SETTINGS_STREAM, botSettingsDecider, { type: 'RecordBotCommandsSync', commands: published }, context);
  return published;
}

export async function updateBotMessages(deps: AppDeps, changes: Partial<BotMessages>, context: CommandContext): Promise<void> {
  await runCommand(deps, BOT_SETTINGS_STREAM, botSettingsDecider, { type: 'UpdateBotMessages', changes }, context);
}

export async function resetBotMessages(deps: AppDeps, context: CommandContext): Promise<void> {
  await runCommand(deps, BOT_SETTINGS_STREAM, botSettingsDecider, { type: 'ResetBotMessages' }, context);
}
