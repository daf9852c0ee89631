import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { type BotSettingsEvent, evolve as evolveBot, initialState as initialBot, renderBotMessage } from '../botSettings/botSettings';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { decide as decideBot } from '../botSettings/decide';
import { decideAccessRequest, decideWhitelist } from './decide';
import {
  type AccessRequestEvent,
  type WhitelistEvent,
  evolveAccessRequest,
  evolveWhitelist,
  initialAccessRequestState,
  initialWhitelistState,
} from './whitelist';

const FIELDS = { username: 'alice', firstName: 'Alice', lastName: '', notes: '', isActive: true };
const ADDED: WhitelistEvent = { type: 'WhitelistEntryAdded', data: { entryId: 'e1', telegramId: '42', source: 'manual', ...FIELDS } };
const whitelistAfter = (events: WhitelistEvent[]) => events.reduce(evolveWhitelist, initialWhitelistState);
const requestAfter = (events: AccessRequestEvent[]) => events.reduce(evolveAccessRequest, initialAccessRequestState);
const ATTEMPT = { username: 'bob', firstName: 'Bob', lastName: '', message: 'hi' };

describe('Whitelist entry', () => {
  it('when listed, then adding the same Telegram ID is a conflict', () =>
    expect(() =>
      decideWhitelist({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId: '42', fields: FIELDS, source: 'manual' }, whitelistAfter([ADDED])),
    ).toThrow(ConflictError));

  it('when the Telegram ID is not in its one spelling (leading zeros, a sign, spaces), then it is refused, so no second entry can hold it', () => {
    for (const telegramId of ['0042', '+42', ' 42', '0', '']) {
      expect(() => decideWhitelist({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId, fields: FIELDS, source: 'manual' }, initialWhitelistState)).toThrow(
        ValidationError,
      );
    }
  });

  it('when deleted, then it may be added again as a new record', () => {
    const state = whitelistAfter([ADDED, { type: 'WhitelistEntryDeleted', data: { entryId: 'e1', telegramId: '42' } }]);
    expect(decideWhitelist({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId: '42', fields: FIELDS, source: 'manual' }, state)[0]?.data).toMatchObject({
      entryId: 'e2',
    });
  });

  it('when toggled, then only the change and its earlier value are recorded', () =>
    expect(decideWhitelist({ type: 'UpdateWhitelistEntry', changes: { isActive: false, username: 'alice' } }, whitelistAfter([ADDED]))).toEqual([
      { type: 'WhitelistEntryUpdated', data: { entryId: 'e1', telegramId: '42', changes: { isActive: false }, previous: { isActive: true } } },
    ]));

  it('when absent, then updates and deletes find nothing', () => {
    expect(() => decideWhitelist({ type: 'DeleteWhitelistEntry' }, initialWhitelistState)).toThrow(NotFoundError);
    expect(() => decideWhitelist({ type: 'UpdateWhitelistEntry', changes: { notes: 'x' } }, initialWhitelistState)).toThrow(NotFoundError);
  });
});

describe('Access request', () => {
  it('when a stranger writes twice, then both attempts belong to one request', () => {
    const first = decideAccessRequest({ type: 'RecordAccessAttempt', requestId: 'r1', telegramId: '7', ...ATTEMPT }, initialAccessRequestState);
    const second = decideAccessRequest({ type: 'RecordAccessAttempt', requestId: 'r2', telegramId: '7', ...ATTEMPT }, requestAfter(first));
    expect(second[0]?.data).toMatchObject({ requestId: 'r1' });
    expect(requestAfter([...first, ...second])).toMatchObject({ status: 'pending', attemptCount: 2 });
  });

  it('when decided, then it is no longer pending and cannot be decided twice', () => {
    const pending = decideAccessRequest({ type: 'RecordAccessAttempt', requestId: 'r1', telegramId: '7', ...ATTEMPT }, initialAccessRequestState);
    const approved = decideAccessRequest({ type: 'ApproveAccessRequest' }, requestAfter(pending));
    expect(approved).toEqual([{ type: 'AccessRequestApproved', data: { requestId: 'r1', telegramId: '7' } }]);
    expect(() => decideAccessRequest({ type: 'RejectAccessRequest' }, requestAfter([...pending, ...approved]))).toThrow(NotFoundError);
  });
});

describe('Bot messages', () => {
  it('when edited, then only changed templates are recorded; reset is recorded only if something differs', () => {
    expect(decideBot({ type: 'UpdateBotMessages', changes: { welcomeMessage: DEFAULT_BOT_MESSAGES.welcomeMessage } }, initialBot)).toEqual([]);
    expect(decideBot({ type: 'ResetBotMessages' }, initialBot)).toEqual([]);
    const edited: BotSettingsEvent[] = decideBot({ type: 'UpdateBotMessages', changes: { cancelMessage: 'Bye' } }, initialBot);
    expect(edited).toEqual([
      { type: 'BotMessagesUpdated', data: { changes: { cancelMessage: 'Bye' }, previous: { cancelMessage: DEFAULT_BOT_MESSAGES.cancelMessage } } },
    ]);
    expect(decideBot({ type: 'ResetBotMessages' }, edited.reduce(evolveBot, initialBot))[0]?.type).toBe('BotMessagesReset');
  });

  it('when rendered, then known variables are filled and a sentence with an unknown one is left out, braces and all', () =>
    expect(renderBotMessage('#{ticketId} is {status}. Ask {other}.', { ticketId: 1001, status: 'resolved' })).toBe('#1001 is resolved.'));
});
