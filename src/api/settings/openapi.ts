import { mailboxTestSchema, telegramTestSchema, updateSettingsSchema } from '#contract/settings';
import type { ApiRegistry } from '../openapi/registry';
import { z } from 'zod';
import { BotIdentity, PublicSettings, SetupStatus, SystemSettings } from '#contract/responses';
import { open, scope } from '../http/scopes';

export function describeSettings(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const settings = z.strictObject({ settings: SystemSettings });
  docs.route({
    method: 'get',
    path: '/settings/public',
    token: open,
    summary: 'What the sign-in page needs',
    access: 'public',
    responses: { 200: { description: '{ settings: { systemName, supportEmail, maintenanceMode, maxFileSize, maxFiles } }', schema: PublicSettings } },
  });
  docs.route({
    method: 'get',
    path: '/settings/setup',
    summary: "A new desk's setup checklist: what is set up so far",
    access: admin,
    token: scope('admin'),
    responses: { 200: { description: '{ setup: { categories, agents, telegramBot, servicePolicies, supportEmail, tickets } }', schema: SetupStatus } },
  });
  docs.route({
    method: 'get',
    path: '/settings',
    token: scope('admin'),
    summary: 'System settings',
    access: admin,
    responses: { 200: { description: 'The settings', schema: settings } },
  });
  docs.route({
    method: 'put',
    path: '/settings',
    token: scope('admin'),
    summary: 'Change system settings',
    access: admin,
    body: updateSettingsSchema,
    responses: { 200: { description: 'The settings after the change', schema: settings } },
  });
  docs.route({
    method: 'get',
    path: '/settings/telegram/status',
    token: scope('admin'),
    summary: 'Whether the Telegram bot answers',
    access: admin,
    responses: {
      200: {
        description: '{ status: active | inactive | error, botUsername?, error? }',
        schema: z.union([
          z.strictObject({ status: z.literal('active'), botUsername: z.string() }),
          z.strictObject({ status: z.enum(['inactive', 'error']), error: z.string() }),
        ]),
      },
    },
  });
  docs.route({
    method: 'post',
    path: '/settings/telegram/test',
    token: scope('admin'),
    summary: 'Try a Telegram bot token',
    access: admin,
    body: telegramTestSchema,
    responses: {
      200: {
        description: '{ success, bot?, error? }',
        schema: z.union([z.strictObject({ success: z.literal(true), bot: BotIdentity }), z.strictObject({ success: z.literal(false), error: z.string() })]),
      },
    },
  });
  docs.route({
    method: 'post',
    path: '/settings/mailbox/test',
    token: scope('admin'),
    summary: 'Try the support mailbox: sign in over IMAP and open its folder',
    access: admin,
    body: mailboxTestSchema,
    responses: {
      200: {
        description: '{ success, folder?, messages?, idle?, error? } (fields not sent, and the masked password, are taken from the stored settings)',
        schema: z.union([
          z.strictObject({ success: z.literal(true), folder: z.string(), messages: z.int(), idle: z.boolean() }),
          z.strictObject({ success: z.literal(false), error: z.string() }),
        ]),
      },
    },
  });
}
