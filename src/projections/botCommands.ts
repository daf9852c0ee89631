import type { BotCommandFields } from '#contract/botCommands';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
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
  ...handledBy({
    async BotCommandCreated(event, store) {
      const { commandId, ...fields } = event.data;
      const at = event.metadata.occurredAt;
      await store
        .collection<BotCommandView>(BOT_COMMANDS)
        .updateOne({ _id: commandId }, { $setOnInsert: { ...fields, createdAt: at, updatedAt: at, _revision: event.revision } }, { upsert: true });
    },
    async BotCommandUpdated(event, store) {
      const rev = event.revision;
      await store
        .collection<BotCommandView>(BOT_COMMANDS)
        .updateOne(
          { _id: event.data.commandId, _revision: { $lt: rev } },
          { $set: { ...event.data.changes, updatedAt: event.metadata.occurredAt, _revision: rev } },
        );
    },
    async BotCommandDeleted(event, store) {
      await store.collection<BotCommandView>(BOT_COMMANDS).deleteOne({ _id: event.data.commandId });
    },
  }),
};
