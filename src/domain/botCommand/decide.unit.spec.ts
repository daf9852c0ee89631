import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import { type BotCommandEvent, SYSTEM_COMMANDS, evolve, initialState } from './botCommand';
import { decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const { commandId: _id, ...START } = SYSTEM_COMMANDS[0]!;
const SYSTEM: BotCommandEvent = { type: 'BotCommandCreated', data: { commandId: 's', isSystem: true, ...START } };
const CUSTOM: BotCommandEvent = {
  type: 'BotCommandCreated',
  data: { commandId: 'c', isSystem: false, command: 'promo', description: 'Promo', handler: 'custom', response: 'SPRING', order: 3, isActive: true },
};

describe('Bot command', () => {
  describe('when created', () => {
    it('then a response is kept only for the custom handler', () =>
      given([])
        .when({
          type: 'CreateBotCommand',
          commandId: 'x',
          isSystem: false,
          fields: { command: 'faq', description: 'FAQ', handler: 'help', response: 'ignored', order: 0, isActive: true },
        })
        .then([
          {
            type: 'BotCommandCreated',
            data: { commandId: 'x', isSystem: false, command: 'faq', description: 'FAQ', handler: 'help', response: null, order: 0, isActive: true },
          },
        ]));

    it('then a custom command without a response is refused', () =>
      given([])
        .when({
          type: 'CreateBotCommand',
          commandId: 'x',
          isSystem: false,
          fields: { command: 'faq', description: 'FAQ', handler: 'custom', response: null, order: 0, isActive: true },
        })
        .thenThrows(ValidationError));

    it('then creating it again is a conflict', () =>
      given([CUSTOM])
        .when({ type: 'CreateBotCommand', commandId: 'c', isSystem: false, fields: { ...START } })
        .thenThrows(ConflictError));
  });

  describe('when it is a system command', () => {
    it('then its name and handler are locked', () => {
      given([SYSTEM])
        .when({ type: 'UpdateBotCommand', commandId: 's', changes: { command: 'begin' } })
        .thenThrows(ForbiddenError);
      given([SYSTEM])
        .when({ type: 'UpdateBotCommand', commandId: 's', changes: { handler: 'custom', response: 'x' } })
        .thenThrows(ForbiddenError);
    });

    it('then its description, order and active flag may change', () =>
      given([SYSTEM])
        .when({ type: 'UpdateBotCommand', commandId: 's', changes: { command: 'start', description: 'Hi', isActive: false } })
        .then([
          {
            type: 'BotCommandUpdated',
            data: { commandId: 's', changes: { description: 'Hi', isActive: false }, previous: { description: START.description, isActive: true } },
          },
        ]));

    it('then it can never be deleted', () => given([SYSTEM]).when({ type: 'DeleteBotCommand', commandId: 's' }).thenThrows(ForbiddenError));
  });

  describe('when it is a custom command', () => {
    it('then switching away from custom drops the response', () =>
      given([CUSTOM])
        .when({ type: 'UpdateBotCommand', commandId: 'c', changes: { handler: 'help' } })
        .then([
          {
            type: 'BotCommandUpdated',
            data: { commandId: 'c', changes: { handler: 'help', response: null }, previous: { handler: 'custom', response: 'SPRING' } },
          },
        ]));

    it('then it can be deleted once, and is gone after', () => {
      given([CUSTOM])
        .when({ type: 'DeleteBotCommand', commandId: 'c' })
        .then([{ type: 'BotCommandDeleted', data: { commandId: 'c', command: 'promo' } }]);
      given([CUSTOM, { type: 'BotCommandDeleted', data: { commandId: 'c', command: 'promo' } }])
        .when({ type: 'DeleteBotCommand', commandId: 'c' })
        .thenThrows(NotFoundError);
    });
  });
});
