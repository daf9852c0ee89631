import { DeciderSpecification } from '../../../test/support/decider';
import type { CustomField } from '#contract/categories';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import { type CategoryLookup, OPEN_TICKET_CLAIM_NEEDED, type TicketActor, type TicketCommand, decide } from './decide';
import { createTicketSchema, editMessageSchema, outcomeSchema, postMessageSchema, updateTicketSchema } from '#contract/tickets';
import { type TicketEvent, evolve, initialState } from './ticket';
import type { AppliedPolicy } from '../sla/clock';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const CUSTOMER: TicketActor = { userId: 'cust-1', role: 'customer' };
const OTHER_CUSTOMER: TicketActor = { userId: 'cust-2', role: 'customer' };
const AGENT: TicketActor = { userId: 'agent-1', role: 'agent' };
const OTHER_AGENT: TicketActor = { userId: 'agent-2', role: 'agent' };
const ADMIN: TicketActor = { userId: 'admin-1', role: 'admin' };
const T = 't1';
const SENT_AT = new Date('2026-11-21T10:00:00.000Z');
const minutesAfter = (minutes: number) => new Date(SENT_AT.getTime() + minutes * 60_000);

const FIELDS: CustomField[] = [
  {
    fieldName: 'order',
    fieldType: 'text',
    prompt: 'Order number',
    placeholder: '',
    required: true,
    validation: { minLength: 3, maxLength: 10, pattern: '^[A-Z0-9-]+$' },
    order: 0,
  },
  { fieldName: 'amount', fieldType: 'number', prompt: 'Amount', placeholder: '', required: false, validation: { min: 1, max: 500 }, order: 1 },
];
const BILLING: CategoryLookup = { categoryId: 'cat-1', isActive: true, customFields: FIELDS };

const open = (overrides: Partial<Extract<TicketCommand, { type: 'OpenTicket' }>> = {}): TicketCommand => ({
  type: 'OpenTicket',
  ticketId: T,
  number: 1001,
  customerId: CUSTOMER.userId,
  platform: 'web',
  title: 'Card declined',
  description: 'My card was declined twice',
  priority: 'medium',
  category: BILLING,
  answers: { order: 'AB-123' },
  ...overrides,
});

const OPENED: TicketEvent = {
  type: 'TicketOpened',
  data: {
    ticketId: T,
    number: 1001,
    title: 'Card declined',
    description: 'My card was declined twice',
    categoryId: 'cat-1',
    priority: 'medium',
    customerId: CUSTOMER.userId,
    customFieldValues: [{ fieldName: 'order', fieldPrompt: 'Order number', value: 'AB-123' }],
    platform: 'web',
  },
};

const posted = (messageId: string, sender: TicketActor, extra: Partial<Extract<TicketEvent, { type: 'MessagePosted' }>['data']> = {}): TicketEvent => ({
  type: 'MessagePosted',
  data: {
    ticketId: T,
    messageId,
    senderId: sender.userId,
    senderRole: sender.role,
    content: 'Hello',
    messageType: 'text',
    isInternal: false,
    platform: 'web',
    attachments: [],
    postedAt: SENT_AT.toISOString(),
    ...extra,
  },
});

const post = (actor: TicketActor, extra: Partial<Extract<TicketCommand, { type: 'PostMessage' }>> = {}): TicketCommand => ({
  type: 'PostMessage',
  ticketId: T,
  messageId: 'm-new',
  actor,
  content: 'Hello',
  isInternal: false,
  platform: 'web',
  attachments: [],
  now: SENT_AT,
  ...extra,
});

const statusChanged = (from: string, to: string) => ({ type: 'TicketStatusChanged', data: { ticketId: T, from, to } }) as TicketEvent;
const assigned = (agentId: string, previousAgentId: string | null = null): TicketEvent => ({
  type: 'AgentAssignedToTicket',
  data: { ticketId: T, agentId, previousAgentId },
});
const FILE = { fileId: 'f1.png', mimeType: 'image/png', originalName: 'shot.png', size: 1200 };

describe('Ticket', () => {
  describe('when opened', () => {
    it('records the ticket with its number, category and validated answers', () => given([]).when(open()).then([OPENED]));

    it('defaults nothing the schema did not: priority medium comes from the input rules', () => {
      expect(createTicketSchema.parse({ title: 't', description: 'd', category: 'c' }).priority).toBe('medium');
    });

    it('refuses a missing or inactive category', () => {
      given([])
        .when(open({ category: null }))
        .thenThrows(ValidationError, 'Please choose an active category');
      given([])
        .when(open({ category: { ...BILLING, isActive: false } }))
        .thenThrows(ValidationError);
    });

    it('refuses a missing required answer with the field prompt', () =>
      given([])
        .when(open({ answers: {} }))
        .thenThrows(ValidationError, 'Order number is required'));

    it('refuses answers outside length, pattern or range, and unknown fields', () => {
      given([])
        .when(open({ answers: { order: 'AB' } }))
        .thenThrows(ValidationError, 'Order number must be at least 3 characters');
      given([])
        .when(open({ answers: { order: 'ab-123' } }))
        .thenThrows(ValidationError, 'Order number does not have the expected format');
      given([])
        .when(open({ answers: { order: 'AB-123', amount: '900' } }))
        .thenThrows(ValidationError, 'Amount must be at most 500');
      given([])
        .when(open({ answers: { order: 'AB-123', amount: 'lots' } }))
        .thenThrows(ValidationError, 'Amount must be a number');
      given([])
        .when(open({ answers: { order: 'AB-123', colour: 'red' } }))
        .thenThrows(ValidationError, 'Unknown custom field: colour');
    });

    it('turns a numeric answer sent as text into a number and keeps a file answer', () => {
      const state = [].reduce(evolve, initialState);
      const [event] = decide(open({ answers: { order: FILE, amount: '42' } }), state);
      expect(event!.data).toMatchObject({
        customFieldValues: [
          { fieldName: 'order', fieldPrompt: 'Order number', value: FILE },
          { fieldName: 'amount', fieldPrompt: 'Amount', value: 42 },
        ],
      });
    });

    it('cannot be opened twice', () => given([OPENED]).when(open()).thenThrows(ConflictError));

    it('validates title and description as docs/product.md section 5 says', () => {
      expect(createTicketSchema.safeParse({ title: ' ', description: 'd', category: 'c' }).error?.issues[0]?.message).toBe('Title is required');
      expect(createTicketSchema.safeParse({ title: 'x'.repeat(201), description: 'd', category: 'c' }).error?.issues[0]?.message).toBe(
        'Title must be at most 200 characters',
      );
      expect(createTicketSchema.safeParse({ title: 't', description: 'x'.repeat(2001), category: 'c' }).error?.issues[0]?.message).toBe(
        'Description must be at most 2000 characters',
      );
      expect(createTicketSchema.safeParse({ title: 't', description: 'd' }).error?.issues[0]?.message).toBe('Category is required');
    });

    it('accepts answers as a list, an object or JSON text (multipart)', () => {
      const base = { title: 't', description: 'd', category: 'c' };
      expect(createTicketSchema.parse({ ...base, customFieldValues: [{ fieldName: 'a', value: 'x' }] }).customFieldValues).toEqual({ a: 'x' });
      expect(createTicketSchema.parse({ ...base, customFieldValues: { a: 2 } }).customFieldValues).toEqual({ a: 2 });
      expect(createTicketSchema.parse({ ...base, customFieldValues: '{"a":"x"}' }).customFieldValues).toEqual({ a: 'x' });
    });
  });

  describe('when its status changes', () => {
    it('records from and to for staff', () =>
      given([OPENED])
        .when({ type: 'ChangeTicketStatus', ticketId: T, actor: AGENT, status: 'resolved' })
        .then([statusChanged('open', 'resolved')]));

    it('allows any status from any other', () =>
      given([OPENED, statusChanged('open', 'closed')])
        .when({ type: 'ChangeTicketStatus', ticketId: T, actor: ADMIN, status: 'pending_customer' })
        .then([statusChanged('closed', 'pending_customer')]));

    it('records nothing when the status is already the one asked for', () =>
      given([OPENED]).when({ type: 'ChangeTicketStatus', ticketId: T, actor: AGENT, status: 'open' }).then([]));

    it('refuses the customer who owns it', () =>
      given([OPENED]).when({ type: 'ChangeTicketStatus', ticketId: T, actor: CUSTOMER, status: 'closed' }).thenThrows(ForbiddenError));

    it('hides a foreign ticket from another customer', () =>
      given([OPENED]).when({ type: 'ChangeTicketStatus', ticketId: T, actor: OTHER_CUSTOMER, status: 'closed' }).thenThrows(NotFoundError));

    it('refuses an unknown status at the schema', () => expect(updateTicketSchema.safeParse({ status: 'done' }).success).toBe(false));
  });

  describe('when assigned', () => {
    const agent = (actor: TicketActor) => ({ userId: actor.userId, role: actor.role, isActive: true });

    it('an agent taking an open ticket assigns it and starts work on it', () =>
      given([OPENED])
        .when({ type: 'AssignTicket', ticketId: T, actor: AGENT, agent: agent(AGENT) })
        .then([assigned(AGENT.userId), statusChanged('open', 'in_progress')]));

    it('an admin assigns another agent', () =>
      given([OPENED, assigned(AGENT.userId), statusChanged('open', 'in_progress')])
        .when({ type: 'AssignTicket', ticketId: T, actor: ADMIN, agent: agent(OTHER_AGENT) })
        .then([assigned(OTHER_AGENT.userId, AGENT.userId)]));

    it('an agent cannot assign someone else', () =>
      given([OPENED])
        .when({ type: 'AssignTicket', ticketId: T, actor: AGENT, agent: agent(OTHER_AGENT) })
        .thenThrows(ForbiddenError));

    it('only active staff can be assignees', () => {
      given([OPENED])
        .when({ type: 'AssignTicket', ticketId: T, actor: ADMIN, agent: agent(CUSTOMER) })
        .thenThrows(ValidationError);
      given([OPENED])
        .when({ type: 'AssignTicket', ticketId: T, actor: ADMIN, agent: { ...agent(AGENT), isActive: false } })
        .thenThrows(ValidationError);
      given([OPENED]).when({ type: 'AssignTicket', ticketId: T, actor: ADMIN, agent: null }).thenThrows(ValidationError);
    });

    it('keeps a resolved ticket resolved', () =>
      given([OPENED, statusChanged('open', 'resolved')])
        .when({ type: 'AssignTicket', ticketId: T, actor: AGENT, agent: agent(AGENT) })
        .then([assigned(AGENT.userId)]));

    it('customers cannot assign', () =>
      given([OPENED])
        .when({ type: 'AssignTicket', ticketId: T, actor: CUSTOMER, agent: agent(AGENT) })
        .thenThrows(ForbiddenError));
  });

  describe('when unassigned', () => {
    const unassigned: TicketEvent = { type: 'AgentUnassignedFromTicket', data: { ticketId: T, agentId: AGENT.userId } };
    const history = [OPENED, assigned(AGENT.userId), statusChanged('open', 'in_progress')];

    it('the assigned agent may let go and the status stays', () =>
      given(history).when({ type: 'UnassignTicket', ticketId: T, actor: AGENT }).then([unassigned]));
    it('an admin may unassign anyone', () => given(history).when({ type: 'UnassignTicket', ticketId: T, actor: ADMIN }).then([unassigned]));
    it('another agent may not', () => given(history).when({ type: 'UnassignTicket', ticketId: T, actor: OTHER_AGENT }).thenThrows(ForbiddenError));
    it('records nothing for an unassigned ticket', () => given([OPENED]).when({ type: 'UnassignTicket', ticketId: T, actor: ADMIN }).then([]));
  });

  describe('when an outcome is recorded', () => {
    it('trims it and keeps the earlier one', () =>
      given([OPENED, { type: 'TicketOutcomeRecorded', data: { ticketId: T, outcomeMessage: 'Refunded', previous: null } }])
        .when({ type: 'RecordOutcome', ticketId: T, actor: AGENT, outcomeMessage: '  Refunded in full  ' })
        .then([{ type: 'TicketOutcomeRecorded', data: { ticketId: T, outcomeMessage: 'Refunded in full', previous: 'Refunded' } }]));

    it('refuses a blank or too long outcome', () => {
      given([OPENED]).when({ type: 'RecordOutcome', ticketId: T, actor: AGENT, outcomeMessage: '   ' }).thenThrows(ValidationError, 'Outcome is required');
      given([OPENED])
        .when({ type: 'RecordOutcome', ticketId: T, actor: AGENT, outcomeMessage: 'x'.repeat(1001) })
        .thenThrows(ValidationError);
      expect(outcomeSchema.safeParse({ outcomeMessage: 'x'.repeat(1001) }).error?.issues[0]?.message).toBe('Outcome must be at most 1000 characters');
    });

    it('is for staff only', () =>
      given([OPENED]).when({ type: 'RecordOutcome', ticketId: T, actor: CUSTOMER, outcomeMessage: 'done' }).thenThrows(ForbiddenError));
  });

  describe('when deleted', () => {
    const deleted: TicketEvent = { type: 'TicketDeleted', data: { ticketId: T, number: 1001, customerId: CUSTOMER.userId } };
    it('an admin deletes it', () => given([OPENED]).when({ type: 'DeleteTicket', ticketId: T, actor: ADMIN }).then([deleted]));
    it('an agent may not', () => given([OPENED]).when({ type: 'DeleteTicket', ticketId: T, actor: AGENT }).thenThrows(ForbiddenError));
    it('a deleted ticket is gone for every command', () => {
      given([OPENED, deleted]).when({ type: 'DeleteTicket', ticketId: T, actor: ADMIN }).thenThrows(NotFoundError);
      given([OPENED, deleted]).when(post(AGENT)).thenThrows(NotFoundError);
    });
  });

  describe('when a message is posted', () => {
    it('records a customer text message', () =>
      given([OPENED])
        .when(post(CUSTOMER))
        .then([posted('m-new', CUSTOMER)]));

    it('does nothing for a message id already posted (a retried Telegram update)', () =>
      given([OPENED, posted('m-new', CUSTOMER, { platform: 'telegram' })])
        .when(post(CUSTOMER, { platform: 'telegram' }))
        .then([]));

    it('records a file-only message as a file message', () =>
      given([OPENED])
        .when(post(CUSTOMER, { content: '  ', attachments: [FILE] }))
        .then([posted('m-new', CUSTOMER, { content: '', messageType: 'file', attachments: [FILE] })]));

    it('records an internal note from staff', () =>
      given([OPENED])
        .when(post(AGENT, { isInternal: true }))
        .then([posted('m-new', AGENT, { isInternal: true })]));

    it('refuses an internal note from a customer', () =>
      given([OPENED])
        .when(post(CUSTOMER, { isInternal: true }))
        .thenThrows(ForbiddenError));

    it('needs text or a file', () =>
      given([OPENED])
        .when(post(CUSTOMER, { content: ' \n ' }))
        .thenThrows(ValidationError, 'A message needs text or at least one file'));

    it('refuses more than 2000 characters', () => {
      given([OPENED])
        .when(post(CUSTOMER, { content: 'x'.repeat(2001) }))
        .thenThrows(ValidationError, 'Message must be at most 2000 characters');
      expect(postMessageSchema.safeParse({ content: 'x'.repeat(2001) }).success).toBe(false);
    });

    it('counts characters, not UTF-16 units, as the HTTP schema does: 2,000 emoji fit, 2,001 do not', () => {
      const emoji = '😀'.repeat(2000);
      expect(
        given([OPENED])
          .when(post(CUSTOMER, { content: emoji }))
          .result(),
      ).toMatchObject([{ type: 'MessagePosted' }]);
      expect(postMessageSchema.safeParse({ content: emoji }).success).toBe(true);
      given([OPENED])
        .when(post(CUSTOMER, { content: `${emoji}😀` }))
        .thenThrows(ValidationError, 'Message must be at most 2000 characters');
      expect(postMessageSchema.safeParse({ content: `${emoji}😀` }).success).toBe(false);
    });

    it('refuses a customer on a closed ticket, saying to open a new one, but not staff', () => {
      given([OPENED, statusChanged('open', 'closed')])
        .when(post(CUSTOMER))
        .thenThrowsCode(ForbiddenError, 'TICKET_CLOSED');
      given([OPENED, statusChanged('open', 'closed')])
        .when(post(CUSTOMER, { openTicketClaimed: true }))
        .thenThrows(ForbiddenError, 'This ticket is closed; please open a new ticket to continue');
      given([OPENED, statusChanged('open', 'closed')])
        .when(post(AGENT))
        .then([posted('m-new', AGENT)]);
    });

    describe('by the customer on a ticket that waits on them or is resolved (docs/tickets.md, reopening)', () => {
      const reopened = (from: string): TicketEvent => ({
        type: 'TicketStatusChanged',
        data: { ticketId: T, from: from as 'resolved', to: 'open', reason: 'customer-replied' },
      });

      it('puts a pending-customer ticket back to open, before the message in the same decision', () =>
        given([OPENED, statusChanged('open', 'pending_customer')])
          .when(post(CUSTOMER))
          .then([reopened('pending_customer'), posted('m-new', CUSTOMER)]));

      it('reopens a resolved ticket once the handler holds the customer’s open-ticket claim', () =>
        given([OPENED, statusChanged('open', 'resolved')])
          .when(post(CUSTOMER, { openTicketClaimed: true }))
          .then([reopened('resolved'), posted('m-new', CUSTOMER)]));

      it('asks the handler for the claim first when a resolved ticket would reopen without it', () =>
        given([OPENED, statusChanged('open', 'resolved')])
          .when(post(CUSTOMER))
          .thenThrowsCode(ConflictError, OPEN_TICKET_CLAIM_NEEDED));

      it('leaves the status alone for staff replies and notes, and for a customer on a ticket already with the desk', () => {
        given([OPENED, statusChanged('open', 'pending_customer')])
          .when(post(AGENT))
          .then([posted('m-new', AGENT)]);
        given([OPENED, statusChanged('open', 'resolved')])
          .when(post(AGENT, { isInternal: true }))
          .then([posted('m-new', AGENT, { isInternal: true })]);
        given([OPENED, statusChanged('open', 'in_progress')])
          .when(post(CUSTOMER))
          .then([posted('m-new', CUSTOMER)]);
      });

      it('decides nothing for a retried post, whatever the status is by then', () =>
        given([OPENED, posted('m-new', CUSTOMER), statusChanged('open', 'resolved')])
          .when(post(CUSTOMER))
          .then([]));
    });

    it('hides the ticket from another customer', () => given([OPENED]).when(post(OTHER_CUSTOMER)).thenThrows(NotFoundError));

    it('reads multipart booleans', () => expect(postMessageSchema.parse({ content: 'x', isInternal: 'true' }).isInternal).toBe(true));
  });

  describe('when a message names colleagues', () => {
    it('keeps them on an internal note, each once, without the author', () =>
      given([OPENED])
        .when(post(AGENT, { isInternal: true, mentions: ['agent-2', 'admin-1', 'agent-2', 'agent-1'] }))
        .then([posted('m-new', AGENT, { isInternal: true, mentions: ['agent-2', 'admin-1'] })]));

    it('drops them from a public reply, which reaches the customer', () =>
      given([OPENED])
        .when(post(AGENT, { mentions: ['agent-2'] }))
        .then([posted('m-new', AGENT)]));
  });

  describe('when a message is edited', () => {
    const history = [
      OPENED,
      posted('m1', CUSTOMER),
      posted('n1', AGENT, { isInternal: true }),
      posted('f1', CUSTOMER, { content: '', messageType: 'file', attachments: [FILE] }),
    ];
    const edit = (actor: TicketActor, messageId: string, now: Date, content = 'Hello again'): TicketCommand => ({
      type: 'EditMessage',
      ticketId: T,
      messageId,
      actor,
      content,
      now,
    });

    it('keeps the earlier text in the event', () =>
      given(history)
        .when(edit(CUSTOMER, 'm1', minutesAfter(4)))
        .then([{ type: 'MessageEdited', data: { ticketId: T, messageId: 'm1', content: 'Hello again', previousContent: 'Hello' } }]));

    it('refuses after 5 minutes', () =>
      given(history)
        .when(edit(CUSTOMER, 'm1', minutesAfter(5.01)))
        .thenThrowsCode(ForbiddenError, 'EDIT_WINDOW_EXPIRED'));

    it('allows exactly 5 minutes', () =>
      given(history)
        .when(edit(CUSTOMER, 'm1', minutesAfter(5)))
        .then([{ type: 'MessageEdited', data: { ticketId: T, messageId: 'm1', content: 'Hello again', previousContent: 'Hello' } }]));

    it('refuses someone else’s message', () =>
      given(history)
        .when(edit(AGENT, 'm1', minutesAfter(1)))
        .thenThrowsCode(ForbiddenError, 'NOT_MESSAGE_SENDER'));

    it('refuses a file message', () =>
      given(history)
        .when(edit(CUSTOMER, 'f1', minutesAfter(1)))
        .thenThrowsCode(ForbiddenError, 'NOT_EDITABLE'));

    it('hides an internal note from a customer', () =>
      given(history)
        .when(edit(CUSTOMER, 'n1', minutesAfter(1)))
        .thenThrows(NotFoundError));

    it('refuses blank text', () => {
      given(history)
        .when(edit(CUSTOMER, 'm1', minutesAfter(1), '  '))
        .thenThrows(ValidationError);
      expect(editMessageSchema.safeParse({ content: ' ' }).error?.issues[0]?.message).toBe('Message text is required');
    });

    it('records nothing when the text is unchanged', () =>
      given(history)
        .when(edit(CUSTOMER, 'm1', minutesAfter(1), 'Hello'))
        .then([]));
  });

  describe('when messages are read', () => {
    const history = [OPENED, posted('m1', CUSTOMER), posted('m2', AGENT), posted('n1', AGENT, { isInternal: true })];
    const read = (actor: TicketActor): TicketCommand => ({ type: 'MarkMessagesRead', ticketId: T, actor });

    it('a customer reads up to the last message they may see', () =>
      given(history)
        .when(read(CUSTOMER))
        .then([{ type: 'MessagesRead', data: { ticketId: T, readerId: CUSTOMER.userId, upTo: 2 } }]));

    it('staff read up to the internal note', () =>
      given(history)
        .when(read(AGENT))
        .then([{ type: 'MessagesRead', data: { ticketId: T, readerId: AGENT.userId, upTo: 3 } }]));

    it('records nothing twice', () =>
      given([...history, { type: 'MessagesRead', data: { ticketId: T, readerId: CUSTOMER.userId, upTo: 2 } }])
        .when(read(CUSTOMER))
        .then([]));
  });
});

describe('Ticket teams, priority and category (docs/teams.md, docs/sla.md)', () => {
  const TEAM = { teamId: 'team-1', name: 'Billing team', archived: false };
  const POLICY: AppliedPolicy = {
    policyId: 'p',
    policyName: 'Standard',
    version: 3,
    calendarName: null,
    hours: null,
    targets: { firstResponse: 30, nextResponse: null, resolution: 240 },
    pauseStatuses: [],
    warnPercent: 80,
  };
  const choice = (categoryId: string, priority: 'medium' | 'urgent') => ({ policy: POLICY, categoryId, priority });

  it('when a routed category opens a ticket, then the team comes with the opening, by the rule; an archived team routes nothing', () => {
    given([])
      .when(open({ category: { ...BILLING, routeTeam: TEAM } }))
      .then([
        OPENED,
        {
          type: 'TicketTeamChanged',
          data: {
            ticketId: T,
            teamId: 'team-1',
            teamName: 'Billing team',
            previousTeamId: null,
            previousTeamName: null,
            reason: 'category-routing',
            categoryId: 'cat-1',
          },
        },
      ]);
    given([])
      .when(open({ category: { ...BILLING, routeTeam: { ...TEAM, archived: true } } }))
      .then([OPENED]);
  });

  it('when staff change the team, then an archived or unknown team is refused and a customer is not told the ticket exists', () => {
    given([OPENED])
      .when({ type: 'ChangeTicketTeam', ticketId: T, actor: AGENT, teamId: 'team-1', team: { ...TEAM, archived: true } })
      .thenThrows(ValidationError, 'Please choose an active team');
    given([OPENED]).when({ type: 'ChangeTicketTeam', ticketId: T, actor: AGENT, teamId: 'nope', team: null }).thenThrows(ValidationError);
    given([OPENED]).when({ type: 'ChangeTicketTeam', ticketId: T, actor: OTHER_CUSTOMER, teamId: null, team: null }).thenThrows(NotFoundError);
    given([OPENED]).when({ type: 'ChangeTicketTeam', ticketId: T, actor: AGENT, teamId: null, team: null }).then([]);
  });

  it('when the priority changes, then the policy chosen for it is reapplied in the same append', () => {
    given([OPENED])
      .when({ type: 'ChangeTicketPriority', ticketId: T, actor: AGENT, priority: 'urgent', sla: choice('cat-1', 'urgent') })
      .then([
        { type: 'TicketPriorityChanged', data: { ticketId: T, priority: 'urgent', previous: 'medium' } },
        { type: 'SlaPolicyReapplied', data: { ticketId: T, policy: POLICY, reason: 'priority' } },
      ]);
  });

  it('when the category moved after the policy was chosen, then the priority change is refused so it is chosen again', () => {
    given([OPENED, { type: 'TicketCategoryChanged', data: { ticketId: T, categoryId: 'cat-2', previous: 'cat-1' } }])
      .when({ type: 'ChangeTicketPriority', ticketId: T, actor: AGENT, priority: 'urgent', sla: choice('cat-1', 'urgent') })
      .thenThrowsCode(ConflictError, 'CONCURRENT_CHANGE');
  });
});

describe('Ticket > priority and macros', () => {
  const reply = (actor: TicketActor = AGENT): Extract<TicketCommand, { type: 'PostMessage' }> => ({
    type: 'PostMessage',
    ticketId: T,
    messageId: 'm-macro',
    actor,
    content: 'Your refund is on its way',
    isInternal: false,
    attachments: [],
    platform: 'web',
    now: SENT_AT,
  });
  const OTHER_ASSIGNED: TicketEvent = { type: 'AgentAssignedToTicket', data: { ticketId: T, agentId: OTHER_AGENT.userId, previousAgentId: null } };

  it('when a macro is applied, then each step is its own event, each decided after the ones before', () => {
    const events = given([OPENED])
      .when({
        type: 'ApplyMacro',
        ticketId: T,
        actor: AGENT,
        steps: [
          { label: 'post the reply', command: reply() },
          { label: 'set status to Resolved', command: { type: 'ChangeTicketStatus', ticketId: T, actor: AGENT, status: 'resolved' } },
          {
            label: 'set priority to low',
            command: { type: 'ChangeTicketPriority', ticketId: T, actor: AGENT, priority: 'low', sla: { policy: null, categoryId: 'cat-1', priority: 'low' } },
          },
        ],
      })
      .result();
    expect(events.map((event) => event.type)).toEqual(['MessagePosted', 'TicketStatusChanged', 'TicketPriorityChanged']);
  });

  it('when one step is refused, then nothing is decided and the error names the step, keeping its status and code', () => {
    const run = () =>
      decide(
        {
          type: 'ApplyMacro',
          ticketId: T,
          actor: AGENT,
          steps: [
            { label: 'post the reply', command: reply() },
            {
              label: 'assign to me',
              command: { type: 'AssignTicket', ticketId: T, actor: AGENT, agent: { userId: AGENT.userId, role: 'agent', isActive: true } },
            },
          ],
        },
        [OPENED, OTHER_ASSIGNED].reduce(evolve, initialState),
      );
    expect(run).toThrow(ConflictError);
    expect(run).toThrow(/^The macro's action "assign to me" was refused, so nothing was applied: This ticket is already assigned to another agent/);
  });
});
