import { changedFields } from '../shared/changes';
import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { isCanonicalTelegramId } from '#contract/whitelist';
import type { Decider } from '../shared/decider';
import {
  type AccessAttempt,
  type AccessRequestEvent,
  type AccessRequestState,
  type WhitelistEvent,
  type WhitelistFields,
  type WhitelistState,
  evolveAccessRequest,
  evolveWhitelist,
  initialAccessRequestState,
  initialWhitelistState,
} from './whitelist';

export type WhitelistCommand =
  | { type: 'AddWhitelistEntry'; entryId: string; telegramId: string; fields: WhitelistFields; source: 'manual' | 'access_request' }
  | { type: 'UpdateWhitelistEntry'; changes: Partial<WhitelistFields> }
  | { type: 'DeleteWhitelistEntry' };

const listed = (state: WhitelistState) => {
  if (state.status !== 'listed') throw new NotFoundError('Whitelist entry');
  return state;
};

export function decideWhitelist(command: WhitelistCommand, state: WhitelistState): WhitelistEvent[] {
  switch (command.type) {
    case 'AddWhitelistEntry': {
      if (state.status === 'listed') throw new ConflictError('This Telegram ID is already whitelisted', 'ALREADY_WHITELISTED', { entryId: state.entryId });
      const { entryId, telegramId, fields, source } = command;
      // The stream is keyed by the ID: `00123` beside `123` would be a second entry the bot never finds.
      if (!isCanonicalTelegramId(telegramId))
        throw new ValidationError('Telegram ID must be written as digits without leading zeros', [{ path: 'telegramId', message: 'Not a Telegram ID' }]);
      return [{ type: 'WhitelistEntryAdded', data: { entryId, telegramId, source, ...fields } }];
    }
    case 'UpdateWhitelistEntry': {
      const entry = listed(state);
      const changed = changedFields<WhitelistFields>(entry, command.changes);
      return changed ? [{ type: 'WhitelistEntryUpdated', data: { entryId: entry.entryId, telegramId: entry.telegramId, ...changed } }] : [];
    }
    case 'DeleteWhitelistEntry': {
      const entry = listed(state);
      return [{ type: 'WhitelistEntryDeleted', data: { entryId: entry.entryId, telegramId: entry.telegramId } }];
    }
  }
}

export type AccessRequestCommand =
  /** `requestId` is used only when this attempt opens a new request. */
  | ({ type: 'RecordAccessAttempt'; requestId: string; telegramId: string } & AccessAttempt)
  | { type: 'ApproveAccessRequest' }
  | { type: 'RejectAccessRequest' }
  | { type: 'RemoveAccessRequest' };

export function decideAccessRequest(command: AccessRequestCommand, state: AccessRequestState): AccessRequestEvent[] {
  if (command.type === 'RecordAccessAttempt') {
    const { type: _type, requestId, ...attempt } = command;
    return [{ type: 'AccessAttempted', data: { ...attempt, requestId: state.status === 'pending' ? state.requestId : requestId } }];
  }
  if (state.status !== 'pending') throw new NotFoundError('Access request');
  const data = { requestId: state.requestId, telegramId: state.telegramId };
  switch (command.type) {
    case 'ApproveAccessRequest':
      return [{ type: 'AccessRequestApproved', data }];
    case 'RejectAccessRequest':
      return [{ type: 'AccessRequestRejected', data }];
    case 'RemoveAccessRequest':
      return [{ type: 'AccessRequestRemoved', data }];
  }
}

export const whitelistDecider: Decider<WhitelistCommand, WhitelistEvent, WhitelistState> = {
  decide: decideWhitelist,
  evolve: evolveWhitelist,
  initialState: initialWhitelistState,
};

export const accessRequestDecider: Decider<AccessRequestCommand, AccessRequestEvent, AccessRequestState> = {
  decide: decideAccessRequest,
  evolve: evolveAccessRequest,
  initialState: initialAccessRequestState,
};
