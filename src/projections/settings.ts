import { type BotMessages, DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { DEFAULT_SYSTEM_SETTINGS, type SystemSettings } from '#contract/settings';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

const SETTINGS = 'settings_v1';

interface Changed {
  updatedAt: string | null;
  updatedBy: string | null;
  _revision: number;
}
export type SystemSettingsView = Doc & SystemSettings & Changed;
export type BotSettingsView = Doc & { messages: BotMessages; lastSyncedAt: string | null } & Changed;

/**
 * The current system settings (doc `system`) and bot settings (doc `bot`). The stored bot token is
 * here because the Telegram worker needs it; responses mask it.
 */
const changed = (event: RecordedEvent) => ({
  updatedAt: event.metadata.occurredAt,
  updatedBy: event.metadata.actor?.userId ?? null,
  _revision: event.revision,
});

/** Sets fields on the bot settings (created with the defaults first) that have not seen this event yet. */
async function setBot(store: ReadStore, event: { revision: number }, fields: Record<string, unknown>) {
  const settings = store.collection(SETTINGS);
  await settings.updateOne({ _id: 'bot' }, { $setOnInsert: { messages: DEFAULT_BOT_MESSAGES, lastSyncedAt: null, _revision: -1 } }, { upsert: true });
  await settings.updateOne({ _id: 'bot', _revision: { $lt: event.revision } }, { $set: fields });
}

export const settingsProjection: Projection = {
  name: 'settings',
  version: 1,
  collections: [SETTINGS],
  ...handledBy({
    async SystemSettingsUpdated(event, store) {
      const settings = store.collection(SETTINGS);
      await settings.updateOne({ _id: 'system' }, { $setOnInsert: { ...DEFAULT_SYSTEM_SETTINGS, _revision: -1 } }, { upsert: true });
      await settings.updateOne({ _id: 'system', _revision: { $lt: event.revision } }, { $set: { ...event.data.changes, ...changed(event) } });
    },
    BotMessagesUpdated: (event, store) =>
      setBot(store, event, { ...Object.fromEntries(Object.entries(event.data.changes).map(([key, value]) => [`messages.${key}`, value])), ...changed(event) }),
    BotMessagesReset: (event, store) => setBot(store, event, { messages: DEFAULT_BOT_MESSAGES, ...changed(event) }),
    BotCommandsSynced: (event, store) => setBot(store, event, { lastSyncedAt: event.metadata.occurredAt, _revision: event.revision }),
  }),
};

export async function loadSystemSettings(store: ReadStore): Promise<SystemSettingsView> {
  const found = await store.collection<SystemSettingsView>(SETTINGS).findOne({ _id: 'system' });
  // Defaults under what is stored: a document written before a setting existed answers its default.
  return found ? { ...DEFAULT_SYSTEM_SETTINGS, ...found } : { _id: 'system', ...DEFAULT_SYSTEM_SETTINGS, updatedAt: null, updatedBy: null, _revision: -1 };
}

export async function loadBotSettings(store: ReadStore): Promise<BotSettingsView> {
  const found = await store.collection<BotSettingsView>(SETTINGS).findOne({ _id: 'bot' });
  return found ?? { _id: 'bot', messages: DEFAULT_BOT_MESSAGES, lastSyncedAt: null, updatedAt: null, updatedBy: null, _revision: -1 };
}
