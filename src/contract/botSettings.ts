import { z } from 'zod';
import { multiLine } from './text';

export const BOT_MESSAGE_KEYS = [
  'welcomeMessage',
  'helpMessage',
  'ticketCreatedMessage',
  'ticketUpdatedMessage',
  'ticketClosedMessage',
  'agentAssignedMessage',
  'newMessageNotification',
  'cancelMessage',
  'invalidCommandMessage',
] as const;
type BotMessageKey = (typeof BOT_MESSAGE_KEYS)[number];
export type BotMessages = Record<BotMessageKey, string>;

/** The variables a template may use (docs/product.md section 3), written as {name}. */
export const BOT_VARIABLES = ['ticketId', 'category', 'status', 'agentName', 'message'] as const;

export const DEFAULT_BOT_MESSAGES: BotMessages = {
  welcomeMessage: 'Welcome to our support desk! 👋\nUse /ticket to open a support ticket, /mytickets to see your tickets, or /help for everything I can do.',
  helpMessage:
    'Here is what I can do:\n/ticket – open a new support ticket\n/mytickets – list your tickets\n/cancel – cancel what you are doing\nWhile a ticket is open, just write here and an agent will answer.',
  ticketCreatedMessage: 'Your ticket #{ticketId} in {category} has been created. An agent will reply here soon.',
  ticketUpdatedMessage: 'Ticket #{ticketId} is now {status}.',
  ticketClosedMessage: 'Ticket #{ticketId} has been closed. Thank you for contacting us! Use /ticket if you need anything else.',
  agentAssignedMessage: '{agentName} is now handling your ticket #{ticketId}.',
  newMessageNotification: 'New reply on ticket #{ticketId} from {agentName}:\n{message}',
  cancelMessage: 'Cancelled. Use /ticket whenever you want to open a ticket.',
  invalidCommandMessage: "Sorry, I don't know that command. Use /help to see what I can do.",
};

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

/** Bot message rules of docs/product.md section 5: each at most 1000 characters. */
export const updateBotSettingsSchema = z
  .object({
    messages: z
      .object(
        Object.fromEntries(BOT_MESSAGE_KEYS.map((key) => [key, template(BOT_MESSAGE_LABELS[key]).optional()])) as Record<
          (typeof BOT_MESSAGE_KEYS)[number],
          z.ZodOptional<ReturnType<typeof template>>
        >,
        {
          message: 'messages must be an object',
        },
      )
      .strict(),
  })
  .strict();
