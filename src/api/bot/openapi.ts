import { z } from 'zod';
import { updateBotSettingsSchema } from '#contract/botSettings';
import { createBotCommandSchema, listBotCommandsQuery, updateBotCommandSchema } from '#contract/botCommands';
import type { ApiRegistry } from '../openapi/registry';
import { BotCommand, BotSettings, Pagination } from '#contract/responses';
import { scope } from '../http/scopes';

export function describeBot(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const command = z.strictObject({ command: BotCommand });
  const settings = z.strictObject({ settings: BotSettings });
  docs.route({
    method: 'get',
    path: '/bot-commands',
    token: scope('admin'),
    summary: 'List bot commands',
    access: admin,
    query: listBotCommandsQuery,
    responses: { 200: { description: '{ commands, pagination }', schema: z.strictObject({ commands: z.array(BotCommand), pagination: Pagination }) } },
  });
  docs.route({
    method: 'get',
    path: '/bot-commands/:id',
    token: scope('admin'),
    summary: 'A bot command',
    access: admin,
    responses: { 200: { description: 'The command', schema: command } },
  });
  docs.route({
    method: 'post',
    path: '/bot-commands',
    token: scope('admin'),
    summary: 'Create a bot command',
    access: admin,
    body: createBotCommandSchema,
    responses: { 201: { description: 'The new command', schema: command } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/bot-commands/:id',
    token: scope('admin'),
    summary: 'Change a bot command',
    access: admin,
    body: updateBotCommandSchema,
    responses: { 200: { description: 'The command after the change', schema: command } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/bot-commands/:id',
    token: scope('admin'),
    summary: 'Delete a bot command',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/bot-commands/sync',
    token: scope('admin'),
    summary: 'Publish the active commands to Telegram',
    access: admin,
    responses: {
      200: {
        description: '{ success, synced, commands }',
        schema: z.strictObject({ success: z.literal(true), synced: z.int(), commands: z.array(z.object({}).catchall(z.unknown())) }),
      },
    },
    errors: [409, 422],
  });
  docs.route({
    method: 'get',
    path: '/bot-settings',
    token: scope('admin'),
    summary: 'Bot messages',
    access: admin,
    responses: { 200: { description: 'The messages', schema: settings } },
  });
  docs.route({
    method: 'put',
    path: '/bot-settings',
    token: scope('admin'),
    summary: 'Change bot messages',
    access: admin,
    body: updateBotSettingsSchema,
    responses: { 200: { description: 'The messages after the change', schema: settings } },
  });
  docs.route({
    method: 'post',
    path: '/bot-settings/reset',
    token: scope('admin'),
    summary: 'Reset bot messages to the defaults',
    access: admin,
    responses: { 200: { description: 'The default messages', schema: settings } },
  });
}
