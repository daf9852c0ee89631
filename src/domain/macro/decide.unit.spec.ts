import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '#contract/errors';
import { renderMacroText, unknownVariables } from '#contract/macros';
import { type MacroDetails, type MacroEvent, evolve, initialState } from './macro';
import { decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const AGENT = { userId: 'agent-1', role: 'agent' as const };
const OTHER = { userId: 'agent-2', role: 'agent' as const };
const ADMIN = { userId: 'admin-1', role: 'admin' as const };
const DETAILS: MacroDetails = {
  name: 'Refund issued',
  shortcode: 'refund',
  reply: 'Hi {{customer.firstName}}, your refund for #{{ticket.number}} is on its way. {{agent.firstName}}',
  actions: [{ type: 'status', status: 'resolved' }],
  shared: false,
};
const CREATED: MacroEvent = { type: 'MacroCreated', data: { macroId: 'm1', ownerId: 'agent-1', version: 1, ...DETAILS } };
const SHARED: MacroEvent = { type: 'MacroCreated', data: { macroId: 'm1', ownerId: 'admin-1', version: 1, ...DETAILS, shared: true } };
const VALUES = {
  'customer.name': 'Carla Diaz',
  'customer.firstName': 'Carla',
  'ticket.number': '1001',
  'ticket.title': 'Refund',
  'agent.name': 'Ana Lopez',
  'agent.firstName': 'Ana',
};

describe('Macro variables', () => {
  it('when rendered, then each known variable takes its value, spaces inside the braces allowed', () =>
    expect(renderMacroText('Hi {{ customer.name }} ({{ticket.title}}), {{agent.name}}', VALUES)).toBe('Hi Carla Diaz (Refund), Ana Lopez'));

  it('when a value reads like a variable, then it is left as written (one pass)', () =>
    expect(renderMacroText('{{customer.name}}', { ...VALUES, 'customer.name': '{{agent.name}}' })).toBe('{{agent.name}}'));

  it('when unknown variables are used, then each is named once, in order', () =>
    expect(unknownVariables('{{customer.email}} {{ticket.number}} {{ agent.phone }} {{customer.email}}')).toEqual(['customer.email', 'agent.phone']));
});

describe('Macro', () => {
  describe('when created', () => {
    it('records its details, owner and version 1', () =>
      given([]).when({ type: 'CreateMacro', macroId: 'm1', actor: AGENT, details: DETAILS }).then([CREATED]));

    it('an agent may not share it', () =>
      given([])
        .when({ type: 'CreateMacro', macroId: 'm1', actor: AGENT, details: { ...DETAILS, shared: true } })
        .thenThrows(ForbiddenError, 'Only admins can share macros'));

    it('refuses unknown variables in the reply and notes with 422, naming them', () =>
      given([])
        .when({
          type: 'CreateMacro',
          macroId: 'm1',
          actor: AGENT,
          details: { ...DETAILS, reply: 'Hi {{customer.email}}', actions: [{ type: 'note', text: 'by {{agent.nick}}' }] },
        })
        .thenThrows(UnprocessableError, /Unknown variables \{\{customer\.email\}\}, \{\{agent\.nick\}\}/));

    it('needs a reply or an action', () =>
      given([])
        .when({ type: 'CreateMacro', macroId: 'm1', actor: AGENT, details: { ...DETAILS, reply: '', actions: [] } })
        .thenThrows(ValidationError));
  });

  describe('when updated', () => {
    it('records what changed and the next version', () =>
      given([CREATED])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { name: 'Refund sent' } })
        .then([{ type: 'MacroUpdated', data: { macroId: 'm1', version: 2, changes: { name: 'Refund sent' }, previous: { name: 'Refund issued' } } }]));

    it('with the version the editor showed, then it applies; with an older one, then 409 MACRO_CHANGED and nothing is overwritten', () => {
      given([CREATED])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { name: 'Refund sent' }, expectedVersion: 1 })
        .then([{ type: 'MacroUpdated', data: { macroId: 'm1', version: 2, changes: { name: 'Refund sent' }, previous: { name: 'Refund issued' } } }]);
      given([CREATED, { type: 'MacroUpdated', data: { macroId: 'm1', version: 2, changes: { name: 'x' }, previous: { name: 'Refund issued' } } }])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { name: 'y' }, expectedVersion: 1 })
        .thenThrowsCode(ConflictError, 'MACRO_CHANGED');
    });

    it('counts versions across updates', () =>
      given([CREATED, { type: 'MacroUpdated', data: { macroId: 'm1', version: 2, changes: { name: 'x' }, previous: { name: 'Refund issued' } } }])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { name: 'y' } })
        .then([{ type: 'MacroUpdated', data: { macroId: 'm1', version: 3, changes: { name: 'y' }, previous: { name: 'x' } } }]));

    it("is another agent's personal macro: not found", () =>
      given([CREATED])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: OTHER, changes: { name: 'x' } })
        .thenThrows(NotFoundError));

    it('a shared macro is changed by admins only', () => {
      given([SHARED])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { name: 'x' } })
        .thenThrows(ForbiddenError);
      expect(
        given([SHARED])
          .when({ type: 'UpdateMacro', macroId: 'm1', actor: ADMIN, changes: { name: 'x' } })
          .result(),
      ).toHaveLength(1);
    });

    it('refuses an unknown variable brought in by the change', () =>
      given([CREATED])
        .when({ type: 'UpdateMacro', macroId: 'm1', actor: AGENT, changes: { reply: '{{ticket.id}}' } })
        .thenThrows(UnprocessableError, /\{\{ticket\.id\}\}/));
  });

  describe('when deleted', () => {
    it('records its name', () =>
      given([CREATED])
        .when({ type: 'DeleteMacro', macroId: 'm1', actor: AGENT })
        .then([{ type: 'MacroDeleted', data: { macroId: 'm1', name: 'Refund issued' } }]));
    it('a shared one is deleted by admins only', () => given([SHARED]).when({ type: 'DeleteMacro', macroId: 'm1', actor: AGENT }).thenThrows(ForbiddenError));
  });
});
