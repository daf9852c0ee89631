import type { BotCommandEvent } from '../domain/botCommand/botCommand';
import type { BotCommandFields } from '#contract/botCommands';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';
import type { BotCommand } from '#contract/responses';

export const BOT_COMMANDS = 'bot_commands_v1';

export interface BotCommandView extends Doc, BotCommandFields {
  isSystem: boolean;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

export const toBotCommand = (view: BotCommandView): BotCommand => ({
  _id: view._id,
  command: view.command,
  description: view.description,
  handler: view.handler,
  response: view.response,
  order: view.order,
  isActive: view.isActive,
  isSystem: view.isSystem,
});

export const botCommandsProjection: Projection = {
  name: 'botCommands',
  version: 1,
  collections: [BOT_COMMANDS],
  async setup(store: ReadStore) {
    await store.collection(BOT_COMMANDS).createIndex({ keys: { command: 1 }, unique: true });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (!recorded.streamId.startsWith('botcommand-')) return;
    const event = recorded as unknown as RecordedEvent & BotCommandEvent;
    const commands = store.collection<BotCommandView>(BOT_COMMANDS);
    const at = recorded.metadata.occurredAt;
    const rev = recorded.revision;
    switch (event.type) {
      case 'BotCommandCreated': {
        const { commandId, ...fields } = event.data;
        await commands.updateOne({ _id: commandId }, { $setOnInsert: { ...fields, createdAt: at, updatedAt: at, _revision: rev } }, { upsert: true });
        return;
      }
      case 'BotCommandUpdated':
        await commands.updateOne({ _id: event.data.commandId, _revision: { $lt: rev } }, { $set: { ...event.data.changes, updatedAt: at, _revision: rev } });
        return;
      case 'BotCommandDeleted':
        await commands.deleteOne({ _id: event.data.commandId });
        return;
    }
  },
};
