import { z } from 'zod';
import { multiLine } from '../shared/text';
import { BOT_MESSAGE_KEYS, BOT_VARIABLES } from './botSettings';

/** What each template is called in messages and on the bot messages form. */
export const BOT_MESSAGE_LABELS: Record<(typeof BOT_MESSAGE_KEYS)[number], string> = {
  welcomeMessage: 'Welcome message',
  helpMessage: 'Help message',
  ticketCreatedMessage: 'Ticket created message',
  ticketUpdatedMessage: 'Ticket updated message',
  ticketClosedMessage: 'Ticket closed message',
  agentAssignedMessage: 'Agent assigned message',
  newMessageNotification: 'New message notification',
  cancelMessage: 'Cancel message',
  invalidCommandMessage: 'Invalid command message',
};

const variables = BOT_VARIABLES.map((name) => `{${name}}`).join(', ');

const template = (label: string) =>
  multiLine(z.string({ message: `${label} must be text` }).trim(), label)
    .min(1, `${label} cannot be empty`)
    .max(1000, `${label} must be at most 1000 characters`)
    .superRefine((text, ctx) => {
      const unknown = [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).filter((name) => !(BOT_VARIABLES as readonly string[]).includes(name));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `${label} uses an unknown variable {${unknown[0]}}; the variables are ${variables}` });
    });

/** Bot message rules of spec.md section 5: each at most 1000 characters. */
export const updateBotSettingsSchema = z
  .object({
    messages: z
      .object(Object.fromEntries(BOT_MESSAGE_KEYS.map((key) => [key, template(BOT_MESSAGE_LABELS[key]).optional()])) as Record<(typeof BOT_MESSAGE_KEYS)[number], z.ZodOptional<ReturnType<typeof template>>>, {
        message: 'messages must be an object',
      })
      .strict(),
  })
  .strict();
