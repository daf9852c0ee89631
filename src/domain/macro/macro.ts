import type { DomainEvent } from '../shared/decider';
import type { MacroAction } from '#contract/macros';

export const macroStream = (macroId: string) => `macro-${macroId}`;

export interface MacroDetails {
  name: string;
  shortcode: string;
  /** May hold the variables of `MACRO_VARIABLES`; empty when the macro only acts. */
  reply: string;
  actions: MacroAction[];
  /** Shared with all staff (set by admins only); else seen and applied by its owner alone. */
  shared: boolean;
}

/** Every change names the version it makes, so an applied macro's events say which version acted (docs/macros.md). */
export type MacroEvent =
  | DomainEvent<'MacroCreated', { macroId: string; ownerId: string; version: 1 } & MacroDetails>
  | DomainEvent<'MacroUpdated', { macroId: string; version: number; changes: Partial<MacroDetails>; previous: Partial<MacroDetails> }>
  | DomainEvent<'MacroDeleted', { macroId: string; name: string }>;

export type LiveMacro = { status: 'active'; macroId: string; ownerId: string; version: number } & MacroDetails;
export type MacroState = { status: 'none' } | LiveMacro | { status: 'deleted'; macroId: string };

export const initialState: MacroState = { status: 'none' };

export function evolve(state: MacroState, event: MacroEvent): MacroState {
  switch (event.type) {
    case 'MacroCreated': {
      const { macroId, ownerId, version, name, shortcode, reply, actions, shared } = event.data;
      return { status: 'active', macroId, ownerId, version, name, shortcode, reply, actions, shared };
    }
    case 'MacroUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes, version: event.data.version } : state;
    case 'MacroDeleted':
      return { status: 'deleted', macroId: event.data.macroId };
  }
}

/** A personal macro is its owner's alone: to anyone else it does not exist. */
export const visibleMacro = (state: MacroState, userId: string): state is LiveMacro => state.status === 'active' && (state.shared || state.ownerId === userId);
