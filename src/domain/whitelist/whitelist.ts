import type { DomainEvent } from '../shared/decider';

/** One stream per Telegram user: being keyed by the Telegram ID makes a duplicate entry impossible. */
export const whitelistStream = (telegramId: string) => `whitelist-${telegramId}`;
export const accessRequestStream = (telegramId: string) => `accessrequest-${telegramId}`;

export interface WhitelistFields {
  username: string;
  firstName: string;
  lastName: string;
  notes: string;
  isActive: boolean;
}

export type WhitelistEvent =
  | DomainEvent<'WhitelistEntryAdded', { entryId: string; telegramId: string; source: 'manual' | 'access_request' } & WhitelistFields>
  | DomainEvent<'WhitelistEntryUpdated', { entryId: string; telegramId: string; changes: Partial<WhitelistFields>; previous: Partial<WhitelistFields> }>
  | DomainEvent<'WhitelistEntryDeleted', { entryId: string; telegramId: string }>;

export type WhitelistState = { status: 'none' } | ({ status: 'listed'; entryId: string; telegramId: string } & WhitelistFields);

export const initialWhitelistState: WhitelistState = { status: 'none' };

export function evolveWhitelist(state: WhitelistState, event: WhitelistEvent): WhitelistState {
  switch (event.type) {
    case 'WhitelistEntryAdded': {
      const { source: _source, ...entry } = event.data;
      return { status: 'listed', ...entry };
    }
    case 'WhitelistEntryUpdated':
      return state.status === 'listed' ? { ...state, ...event.data.changes } : state;
    case 'WhitelistEntryDeleted':
      return { status: 'none' };
  }
}

export interface AccessAttempt {
  username: string;
  firstName: string;
  lastName: string;
  message: string;
}

export type AccessRequestEvent =
  | DomainEvent<'AccessAttempted', { requestId: string; telegramId: string } & AccessAttempt>
  | DomainEvent<'AccessRequestApproved', { requestId: string; telegramId: string }>
  | DomainEvent<'AccessRequestRejected', { requestId: string; telegramId: string }>
  | DomainEvent<'AccessRequestRemoved', { requestId: string; telegramId: string }>;

/** Pending from the first refused message until an admin approves, rejects or removes it. */
export type AccessRequestState = { status: 'none' } | { status: 'pending'; requestId: string; telegramId: string; attemptCount: number };

export const initialAccessRequestState: AccessRequestState = { status: 'none' };

export function evolveAccessRequest(state: AccessRequestState, event: AccessRequestEvent): AccessRequestState {
  switch (event.type) {
    case 'AccessAttempted':
      return state.status === 'pending'
        ? { ...state, attemptCount: state.attemptCount + 1 }
        : { status: 'pending', requestId: event.data.requestId, telegramId: event.data.telegramId, attemptCount: 1 };
    case 'AccessRequestApproved':
    case 'AccessRequestRejected':
    case 'AccessRequestRemoved':
      return { status: 'none' };
  }
}
