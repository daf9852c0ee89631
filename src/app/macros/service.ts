import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { type ApplyMacroInput, type MacroAction, type MacroChanges, type MacroInput, type MacroValues, renderMacroText } from '#contract/macros';
import { STATUS_WORDS, isOpenStatus } from '#contract/tickets';
import type { Role } from '#contract/users';
import { type MacroCommand, macroDecider } from '../../domain/macro/decide';
import { type LiveMacro, macroStream, visibleMacro } from '../../domain/macro/macro';
import type { MacroStep } from '../../domain/ticket/decide';
import { type CommandContext, type Fence, handleCommand, loadState } from '../../platform/commands';
import { MACROS, type MacroView } from '../../projections/macros';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { policyForNewTicket } from '../sla/service';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { actorOf, claimOpenTicket, loadTicket, releaseOpenTicket, runTicketCommand, teamLookup } from '../tickets/service';

/** Macros (docs/macros.md): saved like canned messages, applied to a ticket as one all-or-nothing append. */

const macroActor = (context: CommandContext) => ({ userId: context.actor.userId, role: context.actor.role as Role });

const run = (deps: AppDeps, macroId: string, command: MacroCommand, context: CommandContext) =>
  handleCommand(deps.events, macroStream(macroId), macroDecider, command, context);

async function settled(deps: AppDeps, macroId: string, position: number): Promise<MacroView> {
  await readYourWrites(deps, position);
  const found = await deps.readStore.collection<MacroView>(MACROS).findOne({ _id: macroId });
  if (!found) throw new NotFoundError('Macro');
  return found;
}

const NO_TEAM = 'Please choose an active team';

/** A team action must name an active team when the macro is saved (400, `actions.<i>.teamId`); one archived later is refused when applied. */
async function checkTeams(deps: AppDeps, actions: MacroAction[] | undefined): Promise<void> {
  for (const [index, action] of (actions ?? []).entries()) {
    if (action.type !== 'team' || action.teamId === null) continue;
    const team = await teamLookup(deps, action.teamId);
    if (!team || team.archived) throw new ValidationError(NO_TEAM, [{ path: `actions.${index}.teamId`, message: NO_TEAM }]);
  }
}

export async function createMacro(deps: AppDeps, details: MacroInput, context: CommandContext, macroId = deps.newId()): Promise<MacroView> {
  await checkTeams(deps, details.actions);
  const result = await run(deps, macroId, { type: 'CreateMacro', macroId, actor: macroActor(context), details }, context);
  return settled(deps, macroId, result.position);
}

export async function updateMacro(deps: AppDeps, macroId: string, { version, ...changes }: MacroChanges, context: CommandContext): Promise<MacroView> {
  await checkTeams(deps, changes.actions);
  const result = await run(deps, macroId, { type: 'UpdateMacro', macroId, actor: macroActor(context), changes, expectedVersion: version }, context);
  return settled(deps, macroId, result.position);
}

export async function deleteMacro(deps: AppDeps, macroId: string, context: CommandContext): Promise<void> {
  const result = await run(deps, macroId, { type: 'DeleteMacro', macroId, actor: macroActor(context) }, context);
  await readYourWrites(deps, result.position);
}

/** The macro as its log has it now (not the read model, which may lag): 404 to anyone who may not see it. */
async function currentMacro(deps: AppDeps, macroId: string, context: CommandContext): Promise<LiveMacro> {
  const { state } = await loadState(deps.events, macroStream(macroId), macroDecider);
  if (!visibleMacro(state, context.actor.userId)) throw new NotFoundError('Macro');
  return state;
}

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

async function userOf(deps: AppDeps, userId: string): Promise<UserView | null> {
  return deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
}

async function valuesFor(deps: AppDeps, ticket: TicketView, context: CommandContext): Promise<MacroValues> {
  const agent = (await userOf(deps, context.actor.userId)) ?? { firstName: '', lastName: '' };
  return {
    'customer.name': fullName(ticket.customer),
    'customer.firstName': ticket.customer.firstName,
    'ticket.number': String(ticket.ticketId),
    'ticket.title': ticket.title,
    'agent.name': fullName(agent),
    'agent.firstName': agent.firstName,
  };
}

/** An action as the preview lists it and as a refusal names it. */
type PreviewAction = MacroAction & { label: string };

async function labelled(deps: AppDeps, action: MacroAction, values: MacroValues, context: CommandContext): Promise<PreviewAction> {
  switch (action.type) {
    case 'status':
      return { ...action, label: `set status to ${STATUS_WORDS[action.status]}` };
    case 'priority':
      return { ...action, label: `set priority to ${action.priority}` };
    case 'assign': {
      if (action.agentId === 'me' || action.agentId === context.actor.userId) return { ...action, label: 'assign to me' };
      const agent = await userOf(deps, action.agentId);
      return { ...action, label: `assign to ${agent ? fullName(agent) : 'an unknown user'}` };
    }
    case 'note':
      return { ...action, text: renderMacroText(action.text, values), label: 'add an internal note' };
    case 'team': {
      if (action.teamId === null) return { ...action, label: 'take the ticket out of its team' };
      const team = await teamLookup(deps, action.teamId);
      return { ...action, label: `put the ticket with the team "${team?.name ?? 'an unknown team'}"` };
    }
    case 'tags':
      return { ...action, label: tagsLabel(action.add, action.remove) };
  }
}

const quoted = (tags: string[]) => tags.map((tag) => `"${tag}"`).join(', ');
const tagsLabel = (add: string[], remove: string[]) =>
  [
    add.length > 0 ? `add the tag${add.length > 1 ? 's' : ''} ${quoted(add)}` : '',
    remove.length > 0 ? `remove the tag${remove.length > 1 ? 's' : ''} ${quoted(remove)}` : '',
  ]
    .filter(Boolean)
    .join(' and ');

export interface MacroPreview {
  macro: { _id: string; name: string; version: number };
  reply: string;
  actions: PreviewAction[];
}

async function prepare(deps: AppDeps, ticketId: string, macroId: string, context: CommandContext) {
  const macro = await currentMacro(deps, macroId, context);
  const ticket = await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: ticketId });
  if (!ticket) throw new NotFoundError('Ticket');
  const values = await valuesFor(deps, ticket, context);
  const actions = await Promise.all(macro.actions.map((action) => labelled(deps, action, values, context)));
  return { macro, preview: { macro: { _id: macro.macroId, name: macro.name, version: macro.version }, reply: renderMacroText(macro.reply, values), actions } };
}

/** What applying would do on this ticket, with the variables filled in; nothing is recorded. */
export async function previewMacro(deps: AppDeps, ticketId: string, macroId: string, context: CommandContext): Promise<MacroPreview> {
  const { preview } = await prepare(deps, ticketId, macroId, context);
  return preview;
}

/**
 * Applies a macro: the reply (as the agent sent it after the preview, else the macro's rendered),
 * then each action, all decided in one ticket command and appended together, each event carrying
 * the macro. A refused step refuses the whole (docs/macros.md). Reopening a resolved or closed
 * ticket takes its customer's open-ticket claim first, as a status change alone does.
 */
export async function applyMacro(
  deps: AppDeps,
  ticketId: string,
  macroId: string,
  input: ApplyMacroInput,
  context: CommandContext,
  /**
   * The id of the message of step `index`. Derived from an Idempotency-Key or a bulk change, a repeat
   * finds its messages already posted, and the decider records nothing for them (docs/macros.md).
   */
  messageIdOf: (index: number) => string = () => deps.newId(),
): Promise<number> {
  const { macro, preview } = await prepare(deps, ticketId, macroId, context);
  if (input.version !== undefined && input.version !== macro.version)
    throw new ConflictError(`The macro "${macro.name}" changed since its preview (now version ${macro.version}); preview it again`, 'MACRO_CHANGED');
  const actor = actorOf(context);
  let posts = 0;
  const post = (content: string, isInternal: boolean): MacroStep['command'] => ({
    type: 'PostMessage',
    ticketId,
    messageId: messageIdOf(posts++),
    actor,
    content,
    isInternal,
    attachments: [],
    platform: 'web',
    now: context.now,
  });
  const reply = input.reply ?? preview.reply;
  const { state } = await loadTicket(deps, ticketId);
  const steps: MacroStep[] = reply ? [{ label: 'post the reply', command: post(reply, false) }] : [];
  for (const action of preview.actions) {
    if (action.type === 'status') steps.push({ label: action.label, command: { type: 'ChangeTicketStatus', ticketId, actor, status: action.status } });
    if (action.type === 'priority') {
      // The SLA policy chosen again for the new priority, as a priority change alone does (docs/sla.md); the decider refuses it if the category moved meanwhile.
      const categoryId = state.kind === 'live' ? state.categoryId : '';
      const sla = { policy: await policyForNewTicket(deps, categoryId, action.priority), categoryId, priority: action.priority };
      steps.push({ label: action.label, command: { type: 'ChangeTicketPriority', ticketId, actor, priority: action.priority, sla } });
    }
    if (action.type === 'note') steps.push({ label: action.label, command: post(action.text, true) });
    if (action.type === 'team') {
      const team = action.teamId === null ? null : await teamLookup(deps, action.teamId);
      steps.push({ label: action.label, command: { type: 'ChangeTicketTeam', ticketId, actor, teamId: action.teamId, team } });
    }
    // A tag step each, named by its own tag; taking off a tag the ticket lacks does nothing rather than refusing the macro.
    if (action.type === 'tags') {
      for (const tag of action.add) steps.push({ label: tagsLabel([tag], []), command: { type: 'TagTicket', ticketId, actor, tag, tagged: true } });
      for (const tag of action.remove)
        steps.push({ label: tagsLabel([], [tag]), command: { type: 'TagTicket', ticketId, actor, tag, tagged: false, absentIsFine: true } });
    }
    if (action.type === 'assign') {
      const agent = await userOf(deps, action.agentId === 'me' ? actor.userId : action.agentId);
      const lookup = agent ? { userId: agent._id, role: agent.role, isActive: agent.isActive } : null;
      steps.push({ label: action.label, command: { type: 'AssignTicket', ticketId, actor, agent: lookup } });
    }
  }
  const wanted = preview.actions.find((action) => action.type === 'status')?.status;
  const reopening = state.kind === 'live' && wanted !== undefined && !isOpenStatus(state.status) && isOpenStatus(wanted);
  const fences: Fence[] =
    reopening && state.kind === 'live'
      ? [
          await claimOpenTicket(
            deps,
            state.customerId,
            ticketId,
            context,
            'This customer already has another open ticket; resolve it before reopening this one',
          ),
        ]
      : [];
  const applying: CommandContext = { ...context, macro: { id: macro.macroId, name: macro.name, version: macro.version } };
  let result;
  try {
    result = await runTicketCommand(deps, ticketId, { type: 'ApplyMacro', ticketId, actor, steps }, applying, fences);
  } catch (error) {
    if (reopening && state.kind === 'live') await releaseOpenTicket(deps, state.customerId, ticketId, context);
    throw error;
  }
  const after = result.state;
  if (state.kind === 'live' && after.kind === 'live' && isOpenStatus(state.status) && !isOpenStatus(after.status))
    await releaseOpenTicket(deps, state.customerId, ticketId, context);
  return result.position;
}
