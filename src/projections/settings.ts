import { BOT_SETTINGS_STREAM, type BotSettingsEvent } from '../domain/botSettings/botSettings';
import { type BotMessages, DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { SYSTEM_SETTINGS_STREAM, type SystemSettingsEvent } from '../domain/settings/settings';
import { DEFAULT_SYSTEM_SETTINGS, type SystemSettings } from '#contract/settings';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const SETTINGS = 'settings_v1';

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
export const settingsProjection: Projection = {
  name: 'settings',
  version: 1,
  collections: [SETTINGS],
  async apply(recorded: RecordedEvent, store: ReadStore) {
    const settings = store.collection(SETTINGS);
    const rev = recorded.revision;
    const changed = { updatedAt: recorded.metadata.occurredAt, updatedBy: recorded.metadata.actor?.userId ?? null, _revision: rev };
    if (recorded.streamId === SYSTEM_SETTINGS_STREAM) {
      const event = recorded as unknown as RecordedEvent & SystemSettingsEvent;
      await settings.updateOne({ _id: 'system' }, { $setOnInsert: { ...DEFAULT_SYSTEM_SETTINGS, _revision: -1 } }, { upsert: true });
      await settings.updateOne({ _id: 'system', _revision: { $lt: rev } }, { $set: { ...event.data.changes, ...changed } });
      return;
    }
    if (recorded.streamId !== BOT_SETTINGS_STREAM) return;
    const event = recorded as unknown as RecordedEvent & BotSettingsEvent;
    await settings.updateOne({ _id: 'bot' }, { $setOnInsert: { messages: DEFAULT_BOT_MESSAGES, lastSyncedAt: null, _revision: -1 } }, { upsert: true });
    const guarded = { _id: 'bot', _revision: { $lt: rev } };
    switch (event.type) {
      case 'BotMessagesUpdated':
        await settings.updateOne(guarded, { $set: { ...Object.fromEntries(Object.entries(event.data.changes).map(([key, value]) => [`messages.${key}`, value])), ...changed } });
        return;
      case 'BotMessagesReset':
        await settings.updateOne(guarded, { $set: { messages: DEFAULT_BOT_MESSAGES, ...changed } });
        return;
      case 'BotCommandsSynced':
        await settings.updateOne(guarded, { $set: { lastSyncedAt: recorded.metadata.occurredAt, _revision: rev } });
        return;
    }
  },
};

export async function loadSystemSettings(store: ReadStore): Promise<SystemSettingsView> {
  const found = await store.collection<SystemSettingsView>(SETTINGS).findOne({ _id: 'system' });
  return found ?? { _id: 'system', ...DEFAULT_SYSTEM_SETTINGS, updatedAt: null, updatedBy: null, _revision: -1 };
}

export async function loadBotSettings(store: ReadStore): Promise<BotSettingsView> {
  const found = await store.collection<BotSettingsView>(SETTINGS).findOne({ _id: 'bot' });
  return found ?? { _id: 'bot', messages: DEFAULT_BOT_MESSAGES, lastSyncedAt: null, updatedAt: null, updatedBy: null, _revision: -1 };
}
