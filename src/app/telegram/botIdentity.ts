import { metadataOf } from '../../platform/commands';
import { recordedAs } from '../../platform/eventstore/port';
import type { BotIdentity } from '../../platform/telegram';
import type { AppDeps } from '../deps';

/** Where what getMe said of a bot is kept: one stream per bot (the bot id is the token's first part). */
const botIdentityStream = (botId: number) => `telegrambot-${botId}`;

const IDENTIFIED = 'TelegramBotIdentified';

/**
 * What getMe last said of this bot, or null before it ever answered. The bot handles updates with it
 * as soon as the app starts, so updates already stored reach their tickets while Telegram is down.
 */
export async function knownBotIdentity(deps: Pick<AppDeps, 'events'>, botId: number): Promise<BotIdentity | null> {
  const [last] = await deps.events.readStream(botIdentityStream(botId), { direction: 'backwards', maxCount: 1 });
  if (!last) return null;
  const { id, username, firstName } = recordedAs<{ type: string; data: BotIdentity }>(last).data;
  return { id, username, firstName };
}

/** Records what getMe said when it is new or changed (a renamed bot); a start with the same answer adds nothing. */
export async function recordBotIdentity(deps: Pick<AppDeps, 'events' | 'clock'>, identity: BotIdentity, known: BotIdentity | null): Promise<void> {
  if (known && known.username === identity.username && known.firstName === identity.firstName) return;
  const data = { id: identity.id, username: identity.username, firstName: identity.firstName };
  const metadata = metadataOf({ actor: { userId: 'system', role: 'system', platform: 'telegram' }, now: deps.clock() });
  await deps.events.append(botIdentityStream(identity.id), [{ type: IDENTIFIED, data, metadata }], 'any');
}
