import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError } from '#contract/errors';
import type { Role } from '#contract/users';
import { type CannedDetails, type CannedEvent, type CannedState, evolve, initialState } from './canned';

export type CannedCommand =
  | { type: 'CreateCannedMessage'; cannedId: string; createdBy: string; details: CannedDetails }
  | { type: 'UpdateCannedMessage'; cannedId: string; changes: Partial<CannedDetails> }
  | { type: 'UseCannedMessage'; cannedId: string; usedBy: string }
  | { type: 'DeleteCannedMessage'; cannedId: string; actorRole: Role };

function existing(state: CannedState) {
  if (state.status !== 'active') throw new NotFoundError('Canned message');
  return state;
}

export function decide(command: CannedCommand, state: CannedState): CannedEvent[] {
  switch (command.type) {
    case 'CreateCannedMessage':
      if (state.status !== 'none') throw new ConflictError('Canned message already exists', 'CANNED_EXISTS');
      return [{ type: 'CannedMessageCreated', data: { cannedId: command.cannedId, createdBy: command.createdBy, ...command.details } }];
    case 'UpdateCannedMessage': {
      const { status: _status, cannedId: _id, ...current } = existing(state);
      const changed = changedFields<CannedDetails>(current, command.changes);
      return changed ? [{ type: 'CannedMessageUpdated', data: { cannedId: command.cannedId, ...changed } }] : [];
    }
    case 'UseCannedMessage':
      existing(state);
      return [{ type: 'CannedMessageUsed', data: { cannedId: command.cannedId, usedBy: command.usedBy } }];
    case 'DeleteCannedMessage': {
      const current = existing(state);
      // docs/product.md section 6: agents view, create and edit canned messages; only admins delete them.
      if (command.actorRole !== 'admin') throw new ForbiddenError('Only admins can delete canned messages');
      return [{ type: 'CannedMessageDeleted', data: { cannedId: command.cannedId, shortcode: current.shortcode } }];
    }
  }
}

export const cannedDecider: Decider<CannedCommand, CannedEvent, CannedState> = { decide, evolve, initialState };
