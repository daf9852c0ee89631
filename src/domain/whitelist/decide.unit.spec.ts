import { DeciderSpecification } from '../../../test/support/decider';
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
const whitelist = DeciderSpecification.for({ decide: decideWhitelist, evolve: evolveWhitelist, initialState: initialWhitelistState });
const request = DeciderSpecification.for({ decide: decideAccessRequest, evolve: evolveAccessRequest, initialState: initialAccessRequestState });
const requestAfter = (events: AccessRequestEvent[]) => events.reduce(evolveAccessRequest, initialAccessRequestState);
const botMessages = DeciderSpecification.for({ decide: decideBot, evolve: evolveBot, initialState: initialBot });
const ATTEMPT = { username: 'bob', firstName: 'Bob', lastName: '', message: 'hi' };

describe('Whitelist entry', () => {
  it('when listed, then adding the same Telegram ID is a conflict', () =>
    whitelist([ADDED]).when({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId: '42', fields: FIELDS, source: 'manual' }).thenThrows(ConflictError));

  it('when the Telegram ID is not in its one spelling (leading zeros, a sign, spaces), then it is refused, so no second entry can hold it', () => {
    for (const telegramId of ['0042', '+42', ' 42', '0', '']) {
      whitelist([]).when({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId, fields: FIELDS, source: 'manual' }).thenThrows(ValidationError);
    }
  });

  it('when deleted, then it may be added again as a new record', () =>
    whitelist([ADDED, { type: 'WhitelistEntryDeleted', data: { entryId: 'e1', telegramId: '42' } }])
      .when({ type: 'AddWhitelistEntry', entryId: 'e2', telegramId: '42', fields: FIELDS, source: 'manual' })
      .then([{ ...ADDED, data: { ...ADDED.data, entryId: 'e2' } }]));

  it('when toggled, then only the change and its earlier value are recorded', () =>
    whitelist([ADDED])
      .when({ type: 'UpdateWhitelistEntry', changes: { isActive: false, username: 'alice' } })
      .then([{ type: 'WhitelistEntryUpdated', data: { entryId: 'e1', telegramId: '42', changes: { isActive: false }, previous: { isActive: true } } }]));

  it('when absent, then updates and deletes find nothing', () => {
    whitelist([]).when({ type: 'DeleteWhitelistEntry' }).thenThrows(NotFoundError);
    whitelist([])
      .when({ type: 'UpdateWhitelistEntry', changes: { notes: 'x' } })
      .thenThrows(NotFoundError);
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
    const approved: AccessRequestEvent[] = [{ type: 'AccessRequestApproved', data: { requestId: 'r1', telegramId: '7' } }];
    request(pending).when({ type: 'ApproveAccessRequest' }).then(approved);
    request([...pending, ...approved])
      .when({ type: 'RejectAccessRequest' })
      .thenThrows(NotFoundError);
  });
});

describe('Bot messages', () => {
  it('when edited, then only changed templates are recorded; reset is recorded only if something differs', () => {
    botMessages([])
      .when({ type: 'UpdateBotMessages', changes: { welcomeMessage: DEFAULT_BOT_MESSAGES.welcomeMessage } })
      .then([]);
    botMessages([]).when({ type: 'ResetBotMessages' }).then([]);
    const edited: BotSettingsEvent[] = [
      { type: 'BotMessagesUpdated', data: { changes: { cancelMessage: 'Bye' }, previous: { cancelMessage: DEFAULT_BOT_MESSAGES.cancelMessage } } },
    ];
    botMessages([])
      .when({ type: 'UpdateBotMessages', changes: { cancelMessage: 'Bye' } })
      .then(edited);
    expect(decideBot({ type: 'ResetBotMessages' }, edited.reduce(evolveBot, initialBot))[0]?.type).toBe('BotMessagesReset');
  });

  it('when rendered, then known variables are filled and a sentence with an unknown one is left out, braces and all', () =>
    expect(renderBotMessage('#{ticketId} is {status}. Ask {other}.', { ticketId: 1001, status: 'resolved' })).toBe('#1001 is resolved.'));
});
