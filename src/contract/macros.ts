import { z } from 'zod';
import { shortcode } from './canned';
import { MESSAGE_MAX, PRIORITIES, TAGS_PER_TICKET, TICKET_STATUSES, type Priority, type TicketStatus, tagSchema } from './tickets';
import { multiLine, singleLine } from './text';

/** Macros (docs/macros.md): a reply and ticket actions an agent applies in one step. Shared by the API and the web form. */

/** The variables a macro's texts may hold, as `{{name}}`; any other is refused when the macro is saved. */
export const MACRO_VARIABLES = ['customer.name', 'customer.firstName', 'ticket.number', 'ticket.title', 'agent.name', 'agent.firstName'] as const;
export type MacroVariable = (typeof MACRO_VARIABLES)[number];
export type MacroValues = Record<MacroVariable, string>;

const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const isKnown = (name: string): name is MacroVariable => (MACRO_VARIABLES as readonly string[]).includes(name);

/** The distinct variables of a text that are not of `known` (a macro's by default; a rule's are fewer), in order of appearance. */
export const unknownVariables = (text: string, known: readonly string[] = MACRO_VARIABLES): string[] => [
  ...new Set([...text.matchAll(VARIABLE)].map(([, name]) => name!).filter((name) => !known.includes(name))),
];

/**
 * The text with each known variable replaced by its value. One pass: a value that itself reads like
 * a variable (a customer named `{{agent.name}}`) is left as it is.
 */
export const renderMacroText = (text: string, values: MacroValues): string =>
  text.replace(VARIABLE, (whole, name: string) => (isKnown(name) ? values[name] : whole));

const MACRO_ACTIONS_MAX = 10;

/**
 * `agentId: 'me'` assigns the ticket to whoever applies the macro; `teamId: null` takes the ticket out of
 * its team; `tags` adds and removes tags (removing one the ticket lacks does nothing).
 */
export type MacroAction =
  | { type: 'status'; status: TicketStatus }
  | { type: 'priority'; priority: Priority }
  | { type: 'assign'; agentId: string }
  | { type: 'note'; text: string }
  | { type: 'team'; teamId: string | null }
  | { type: 'tags'; add: string[]; remove: string[] };

const tagList = z.array(tagSchema, { message: 'Tags must be a list' }).max(TAGS_PER_TICKET, `At most ${TAGS_PER_TICKET} tags`).default([]);

const noteText = multiLine(z.string({ message: 'Note text is required' }).trim(), 'Note text')
  .min(1, 'Note text is required')
  .max(MESSAGE_MAX, `Note text must be at most ${MESSAGE_MAX} characters`);

const action = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('status'), status: z.enum(TICKET_STATUSES, { message: `Status must be one of ${TICKET_STATUSES.join(', ')}` }) }),
    z.strictObject({ type: z.literal('priority'), priority: z.enum(PRIORITIES, { message: 'Priority must be low, medium, high or urgent' }) }),
    z.strictObject({
      type: z.literal('assign'),
      agentId: z.string({ message: "Assign needs an agent id or 'me'" }).trim().min(1, "Assign needs an agent id or 'me'"),
    }),
    z.strictObject({ type: z.literal('note'), text: noteText }),
    z.strictObject({
      type: z.literal('team'),
      teamId: z
        .string({ message: 'Team needs a team id, or null to take the ticket out of its team' })
        .trim()
        .min(1, 'Please choose an active team')
        .nullable(),
    }),
    z
      .strictObject({ type: z.literal('tags'), add: tagList, remove: tagList })
      .refine((tags) => tags.add.length + tags.remove.length > 0, { message: 'Tags needs a tag to add or remove', path: ['add'] })
      .refine((tags) => !tags.add.some((tag) => tags.remove.includes(tag)), { message: 'A tag cannot be both added and removed', path: ['remove'] }),
  ],
  { message: 'Each action must be status, priority, assign, note, team or tags' },
);

const name = singleLine(z.string({ message: 'Name is required' }).trim(), 'Name')
  .min(1, 'Name is required')
  .max(99, 'Name must be less than 100 characters');
const reply = multiLine(z.string({ message: 'Reply must be text' }).trim(), 'Reply').max(MESSAGE_MAX, `Reply must be at most ${MESSAGE_MAX} characters`);
const actions = z
  .array(action, { message: 'Actions must be a list' })
  .max(MACRO_ACTIONS_MAX, `A macro has at most ${MACRO_ACTIONS_MAX} actions`)
  .refine((list) => ['status', 'priority', 'assign', 'team', 'tags'].every((type) => list.filter((a) => a.type === type).length <= 1), {
    message: 'A macro sets the status, the priority, the assignee, the team and the tags at most once each',
  });
const shared = z.boolean({ message: 'Shared must be true or false' });

const fields = { name, shortcode, reply, actions, shared };
const somethingToDo = (macro: { reply?: string; actions?: unknown[] }) => macro.reply === undefined || macro.reply !== '' || (macro.actions ?? []).length > 0;
const NOTHING_TO_DO = 'A macro needs a reply or at least one action';

export const createMacroSchema = z
  .object({ ...fields, reply: reply.default(''), actions: actions.default([]), shared: shared.default(false) })
  .strict()
  .refine(somethingToDo, { message: NOTHING_TO_DO, path: ['reply'] });
/** `version`: the version the editor showed (409 `MACRO_CHANGED` when the macro changed since); absent, the change applies to whatever is there. */
export const updateMacroSchema = z
  .object({ ...fields, version: z.int({ message: 'Version must be a whole number' }).min(1, 'Version must be a whole number') })
  .partial()
  .strict();

export const listMacrosQuery = z.object({ q: z.string().trim().max(200, 'Search text must be at most 200 characters').optional() }).strict();

/** The reply as the agent sent it after the preview (possibly edited), and the version the preview showed. */
export const applyMacroSchema = z
  .object({
    reply: multiLine(z.string({ message: 'Reply must be text' }).trim(), 'Reply')
      .max(MESSAGE_MAX, `Reply must be at most ${MESSAGE_MAX} characters`)
      .optional(),
    version: z.int({ message: 'Version must be a whole number' }).min(1, 'Version must be a whole number').optional(),
  })
  .strict();

export type MacroInput = z.output<typeof createMacroSchema>;
export type MacroChanges = z.output<typeof updateMacroSchema>;
export type ApplyMacroInput = z.output<typeof applyMacroSchema>;
