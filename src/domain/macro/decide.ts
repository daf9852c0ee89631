import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '#contract/errors';
import { MACRO_VARIABLES, unknownVariables } from '#contract/macros';
import type { Role } from '#contract/users';
import { type LiveMacro, type MacroDetails, type MacroEvent, type MacroState, evolve, initialState, visibleMacro } from './macro';

interface MacroActor {
  userId: string;
  role: Role;
}

export type MacroCommand =
  | { type: 'CreateMacro'; macroId: string; actor: MacroActor; details: MacroDetails }
  /** `expectedVersion`: the version the editor showed; a macro changed since is refused rather than overwritten. */
  | { type: 'UpdateMacro'; macroId: string; actor: MacroActor; changes: Partial<MacroDetails>; expectedVersion?: number }
  | { type: 'DeleteMacro'; macroId: string; actor: MacroActor };

/**
 * The texts a macro's variables are read from must name only known variables: refused at save
 * (422 `UNKNOWN_VARIABLES`, naming them) rather than sent to a customer as `{{typo}}`.
 */
function checkVariables(details: MacroDetails): void {
  const texts = [details.reply, ...details.actions.flatMap((action) => (action.type === 'note' ? [action.text] : []))];
  const unknown = [...new Set(texts.flatMap((text) => unknownVariables(text)))];
  if (unknown.length === 0) return;
  const error = new UnprocessableError(
    `Unknown ${unknown.length === 1 ? 'variable' : 'variables'} ${unknown.map((name) => `{{${name}}}`).join(', ')}; a macro may use ${MACRO_VARIABLES.map((name) => `{{${name}}}`).join(', ')}`,
    'UNKNOWN_VARIABLES',
  );
  Object.assign(error.extra, { variables: unknown });
  throw error;
}

function checkSomethingToDo(details: MacroDetails): void {
  if (details.reply === '' && details.actions.length === 0)
    throw new ValidationError('A macro needs a reply or at least one action', [{ path: 'reply', message: 'A macro needs a reply or at least one action' }]);
}

/** Only admins share macros, and only admins change or delete a shared one; a personal macro is its owner's. */
function editable(state: MacroState, actor: MacroActor): LiveMacro {
  if (!visibleMacro(state, actor.userId)) throw new NotFoundError('Macro');
  if (state.shared && actor.role !== 'admin') throw new ForbiddenError('Only admins can change shared macros');
  return state;
}

const refuseSharing = (shared: boolean | undefined, actor: MacroActor) => {
  if (shared && actor.role !== 'admin') throw new ForbiddenError('Only admins can share macros');
};

export function decide(command: MacroCommand, state: MacroState): MacroEvent[] {
  switch (command.type) {
    case 'CreateMacro': {
      if (state.status !== 'none') throw new ConflictError('Macro already exists', 'MACRO_EXISTS');
      refuseSharing(command.details.shared, command.actor);
      checkSomethingToDo(command.details);
      checkVariables(command.details);
      return [{ type: 'MacroCreated', data: { macroId: command.macroId, ownerId: command.actor.userId, version: 1, ...command.details } }];
    }
    case 'UpdateMacro': {
      const { status: _status, macroId, ownerId: _owner, version, ...current } = editable(state, command.actor);
      if (command.expectedVersion !== undefined && command.expectedVersion !== version)
        throw new ConflictError(`The macro "${current.name}" was changed by someone else (now version ${version}); open it again`, 'MACRO_CHANGED');
      refuseSharing(command.changes.shared, command.actor);
      const changed = changedFields<MacroDetails>(current, command.changes);
      if (!changed) return [];
      const next = { ...current, ...changed.changes };
      checkSomethingToDo(next);
      checkVariables(next);
      return [{ type: 'MacroUpdated', data: { macroId, version: version + 1, ...changed } }];
    }
    case 'DeleteMacro': {
      const current = editable(state, command.actor);
      return [{ type: 'MacroDeleted', data: { macroId: current.macroId, name: current.name } }];
    }
  }
}

export const macroDecider: Decider<MacroCommand, MacroEvent, MacroState> = { decide, evolve, initialState };
