import type { BotCommandFields } from '#contract/botCommands';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';
import { type HoldsKeys, type UniqueKey, settleKey } from './uniqueKeys';
import type { BotCommand } from '#contract/responses';

export const BOT_COMMANDS = 'bot_commands_v1';

export interface BotCommandView extends Doc, BotCommandFields, HoldsKeys {
  isSystem: boolean;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

const NAME: UniqueKey = { projection: 'botCommands', collection: BOT_COMMANDS, field: 'command' };

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
  version: 2,
  collections: [BOT_COMMANDS],
  async setup(store: ReadStore) {
    // Not unique: two commands the log gives one name are both kept, and the conflict recorded (uniqueKeys.ts).
    await store.collection(BOT_COMMANDS).createIndex({ keys: { command: 1 } });
  },
  ...handledBy({
    async BotCommandCreated(event, store) {
      const { commandId, ...fields } = event.data;
      const at = event.metadata.occurredAt;
      await store
        .collection<BotCommandView>(BOT_COMMANDS)
        .updateOne(
          { _id: commandId },
          { $setOnInsert: { ...fields, _since: { command: event.position }, createdAt: at, updatedAt: at, _revision: event.revision } },
          { upsert: true },
        );
      await settleKey(store, NAME, [fields.command], event);
    },
    async BotCommandUpdated(event, store) {
      const rev = event.revision;
      const since = event.data.changes.command === undefined ? {} : { '_since.command': event.position };
      await store
        .collection<BotCommandView>(BOT_COMMANDS)
        .updateOne(
          { _id: event.data.commandId, _revision: { $lt: rev } },
          { $set: { ...event.data.changes, ...since, updatedAt: event.metadata.occurredAt, _revision: rev } },
        );
      if (event.data.changes.command !== undefined) await settleKey(store, NAME, [event.data.previous.command, event.data.changes.command], event);
    },
    async BotCommandDeleted(event, store) {
      await store.collection<BotCommandView>(BOT_COMMANDS).deleteOne({ _id: event.data.commandId });
      await settleKey(store, NAME, [event.data.command], event);
    },
  }),
};
