import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import type { TicketStatus } from '#contract/tickets';
import { MERGE_COPY_BYTES, type TicketActor, type TicketCommand, decide } from './decide';
import { type TicketEvent, type TicketState, evolve, initialState } from './ticket';

const CUSTOMER: TicketActor = { userId: 'cust-1', role: 'customer' };
const OTHER_CUSTOMER: TicketActor = { userId: 'cust-2', role: 'customer' };
const AGENT: TicketActor = { userId: 'agent-1', role: 'agent' };
const ADMIN: TicketActor = { userId: 'admin-1', role: 'admin' };
const SOURCE = 'src';
const TARGET = 'tgt';
const MERGED_AT = new Date('2026-11-21T10:00:00.000Z');
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

const opened = (ticketId: string, number: number, customerId = CUSTOMER.userId): TicketEvent => ({
  type: 'TicketOpened',
  data: {
    ticketId,
    number,
    title: 'Card declined',
    description: 'Twice',
    categoryId: 'c',
    priority: 'medium',
    customerId,
    customFieldValues: [],
    platform: 'web',
  },
});
const posted = (ticketId: string, messageId: string, sender: TicketActor, isInternal = false, postedAt = '2026-11-20T09:00:00.000Z'): TicketEvent => ({
  type: 'MessagePosted',
  data: {
    ticketId,
    messageId,
    senderId: sender.userId,
    senderRole: sender.role,
    content: `text of ${messageId}`,
    messageType: 'text',
    isInternal,
    platform: 'web',
    attachments: [],
    postedAt,
  },
});
const status = (ticketId: string, from: TicketStatus, to: TicketStatus): TicketEvent => ({ type: 'TicketStatusChanged', data: { ticketId, from, to } });
const read = (ticketId: string, readerId: string, upTo: number): TicketEvent => ({ type: 'MessagesRead', data: { ticketId, readerId, upTo } });
const fold = (events: TicketEvent[]): TicketState => events.reduce(evolve, initialState);

/** given(events of the ticket the command goes to).when(command).then(events) */
const given = DeciderSpecification.for({ decide, evolve, initialState });

const SOURCE_OPEN = [opened(SOURCE, 1042), posted(SOURCE, 's1', CUSTOMER), posted(SOURCE, 's2', AGENT, true), posted(SOURCE, 's3', CUSTOMER)];
const TARGET_CLOSED = [opened(TARGET, 1043), posted(TARGET, 't1', CUSTOMER), status(TARGET, 'open', 'closed')];
const mergeInto = (actor: TicketActor, target: TicketState, now = MERGED_AT): TicketCommand => ({ type: 'MergeInto', ticketId: SOURCE, actor, target, now });
const MERGED_INTO: TicketEvent = {
  type: 'TicketMergedInto',
  data: {
    ticketId: SOURCE,
    targetId: TARGET,
    targetNumber: 1043,
    targetCustomerId: CUSTOMER.userId,
    previousStatus: 'open',
    mergedBy: AGENT.userId,
    mergedAt: MERGED_AT.toISOString(),
  },
};
const mergeFrom = (source: TicketEvent[], reopen = true, actor = AGENT): TicketCommand => ({
  type: 'MergeFrom',
  ticketId: TARGET,
  actor,
  source: fold(source),
  reopen,
  now: MERGED_AT,
});
const mergedFromOf = (target: TicketEvent[], source: TicketEvent[], reopen = true) => decide(mergeFrom(source, reopen), fold(target));

describe('Ticket merge', () => {
  describe('when merged into another ticket (the source)', () => {
    it('records the target, who merged and the status it had', () =>
      given(SOURCE_OPEN)
        .when(mergeInto(AGENT, fold(TARGET_CLOSED)))
        .then([MERGED_INTO]));

    it('is closed and redirects; posting, editing or changing its status is refused until the merge is undone', () => {
      const state = fold([...SOURCE_OPEN, MERGED_INTO]);
      expect(state).toMatchObject({ status: 'closed', mergedInto: { ticketId: TARGET, number: 1043, previousStatus: 'open' } });
      given([...SOURCE_OPEN, MERGED_INTO])
        .when({
          type: 'PostMessage',
          ticketId: SOURCE,
          messageId: 'm9',
          actor: AGENT,
          content: 'hi',
          isInternal: false,
          platform: 'web',
          attachments: [],
          now: MERGED_AT,
        })
        .thenThrowsCode(ConflictError, 'TICKET_MERGED');
      given([...SOURCE_OPEN, MERGED_INTO])
        .when({ type: 'ChangeTicketStatus', ticketId: SOURCE, actor: AGENT, status: 'open' })
        .thenThrowsCode(ConflictError, 'TICKET_MERGED');
    });

    it('takes no assignee until the merge is undone: the work goes on in the target', () =>
      given([...SOURCE_OPEN, MERGED_INTO])
        .when({ type: 'AssignTicket', ticketId: SOURCE, actor: ADMIN, agent: { userId: AGENT.userId, role: 'agent', isActive: true } })
        .thenThrowsCode(ConflictError, 'TICKET_MERGED'));

    it('only staff merge: a customer is refused, even for their own tickets', () =>
      given(SOURCE_OPEN)
        .when(mergeInto(CUSTOMER, fold(TARGET_CLOSED)))
        .thenThrows(ForbiddenError));

    it('an agent cannot merge tickets of two customers; an admin can', () => {
      const foreign = fold([opened(TARGET, 1043, OTHER_CUSTOMER.userId)]);
      given(SOURCE_OPEN).when(mergeInto(AGENT, foreign)).thenThrowsCode(ForbiddenError, 'DIFFERENT_CUSTOMERS');
      expect(given(SOURCE_OPEN).when(mergeInto(ADMIN, foreign)).result()).toMatchObject([
        { type: 'TicketMergedInto', data: { targetCustomerId: OTHER_CUSTOMER.userId, mergedBy: ADMIN.userId } },
      ]);
    });

    it('refuses itself, a missing target, a target merged elsewhere, and a second merge elsewhere', () => {
      given(SOURCE_OPEN)
        .when(mergeInto(AGENT, fold(SOURCE_OPEN)))
        .thenThrows(ValidationError);
      given(SOURCE_OPEN).when(mergeInto(AGENT, initialState)).thenThrows(NotFoundError);
      const targetMerged = fold([...TARGET_CLOSED, { ...MERGED_INTO, data: { ...MERGED_INTO.data, ticketId: TARGET, targetId: 'x', targetNumber: 1 } }]);
      given(SOURCE_OPEN).when(mergeInto(AGENT, targetMerged)).thenThrowsCode(ConflictError, 'TICKET_MERGED');
      given([...SOURCE_OPEN, MERGED_INTO])
        .when(mergeInto(AGENT, fold([opened('third', 1050)])))
        .thenThrowsCode(ConflictError, 'TICKET_MERGED');
    });

    it('decides nothing when already merged into the same target, so an interrupted merge can be run again', () =>
      given([...SOURCE_OPEN, MERGED_INTO])
        .when(mergeInto(AGENT, fold(TARGET_CLOSED)))
        .then([]));
  });

  describe('when a ticket is merged into it (the target)', () => {
    const source = [...SOURCE_OPEN, MERGED_INTO];

    it('takes the source conversation in its order, notes staying notes, and reopens a closed target', () => {
      const [event] = mergedFromOf(TARGET_CLOSED, source);
      expect(event).toMatchObject({
        type: 'TicketMergedFrom',
        data: {
          ticketId: TARGET,
          sourceId: SOURCE,
          sourceNumber: 1042,
          mergedBy: AGENT.userId,
          reopenedFrom: 'closed',
          crossCustomer: false,
          messages: [
            { messageId: 's1', isInternal: false, sourceSeq: 1 },
            { messageId: 's2', isInternal: true, sourceSeq: 2 },
            { messageId: 's3', isInternal: false, sourceSeq: 3 },
          ],
        },
      });
      const after = fold([...TARGET_CLOSED, event!]);
      expect(after).toMatchObject({ status: 'open', lastSeq: 4, lastPublicSeq: 4 });
      expect(after.kind === 'live' && after.messages.get('s2')).toMatchObject({ seq: 3, isInternal: true, origin: 1042 });
    });

    it('stays as it is when the handler could not take the open-ticket claim for it', () =>
      expect(mergedFromOf(TARGET_CLOSED, source, false)[0]!.data).toMatchObject({ reopenedFrom: null }));

    it('moves past the merged messages a reader had read in the source, only for readers who had read the whole target', () => {
      const target = [...TARGET_CLOSED, read(TARGET, CUSTOMER.userId, 1), read(TARGET, AGENT.userId, 0)];
      const readSource = [...SOURCE_OPEN.slice(0, 4), read(SOURCE, CUSTOMER.userId, 3), read(SOURCE, AGENT.userId, 3), MERGED_INTO];
      const [event] = mergedFromOf(target, readSource);
      // The customer read everything in both: past all three. The agent had not read the target: unchanged.
      expect(event!.data).toMatchObject({ readMarks: { [CUSTOMER.userId]: 4 } });
      expect(Object.keys((event!.data as { readMarks: object }).readMarks)).toEqual([CUSTOMER.userId]);
    });

    it('refuses a source that is not merged into it, and decides nothing the second time', () => {
      expect(() => mergedFromOf(TARGET_CLOSED, SOURCE_OPEN)).toThrow(expect.objectContaining({ code: 'NOT_MERGED' }) as unknown as Error);
      const [event] = mergedFromOf(TARGET_CLOSED, source);
      expect(mergedFromOf([...TARGET_CLOSED, event!], source)).toEqual([]);
    });

    it('marks another customer’s messages as such', () => {
      const foreignSource = [opened(SOURCE, 1042, OTHER_CUSTOMER.userId), posted(SOURCE, 's1', OTHER_CUSTOMER), MERGED_INTO];
      const [event] = decide(mergeFrom(foreignSource, true, ADMIN), fold(TARGET_CLOSED));
      expect(event!.data).toMatchObject({ crossCustomer: true });
      const after = fold([...TARGET_CLOSED, event!]);
      // Not public to the target's customer: their read position does not move with it.
      expect(after).toMatchObject({ lastSeq: 2, lastPublicSeq: 1 });
    });
  });

  describe('when the merge is undone', () => {
    const source = [...SOURCE_OPEN, MERGED_INTO];
    const mergedTarget = () => [...TARGET_CLOSED, ...mergedFromOf(TARGET_CLOSED, source)];
    const undoFrom = (): TicketCommand => ({ type: 'UndoMergeFrom', ticketId: TARGET, actor: AGENT, sourceId: SOURCE });
    const undoInto = (now: Date): TicketCommand => ({ type: 'UndoMergeInto', ticketId: SOURCE, actor: AGENT, windowMs: WEEK_MS, now });

    it('takes the merged messages out of the target, keeps those written since, and closes it again', () => {
      const target = [...mergedTarget(), posted(TARGET, 'after', CUSTOMER)];
      const [event] = given(target).when(undoFrom()).result();
      expect(event).toEqual({
        type: 'TicketMergeFromUndone',
        data: { ticketId: TARGET, sourceId: SOURCE, sourceNumber: 1042, messageIds: ['s1', 's2', 's3'], publicCount: 2, restoredStatus: 'closed' },
      });
      const after = fold([...target, event!]);
      expect(after.kind === 'live' && [...after.messages.keys()]).toEqual(['t1', 'after']);
      expect(after).toMatchObject({ status: 'closed', mergedFrom: [] });
    });

    it('leaves a status staff changed since the merge as it is', () =>
      expect(
        given([...mergedTarget(), status(TARGET, 'open', 'resolved')])
          .when(undoFrom())
          .result()[0]!.data,
      ).toMatchObject({ restoredStatus: null }));

    it('gives the source back its status within the window', () =>
      given(source)
        .when(undoInto(new Date(MERGED_AT.getTime() + 6 * DAY_MS)))
        .then([{ type: 'TicketMergeIntoUndone', data: { ticketId: SOURCE, targetId: TARGET, targetNumber: 1043, restoredStatus: 'open' } }]));

    it('is refused after the window', () =>
      given(source)
        .when(undoInto(new Date(MERGED_AT.getTime() + 8 * DAY_MS)))
        .thenThrowsCode(ForbiddenError, 'UNMERGE_WINDOW_EXPIRED'));

    it('is refused on a ticket that is not merged, and decides nothing on a target already undone', () => {
      given(SOURCE_OPEN).when(undoInto(MERGED_AT)).thenThrowsCode(ConflictError, 'NOT_MERGED');
      given(TARGET_CLOSED).when(undoFrom()).then([]);
    });

    it('is for staff only', () =>
      given(source).when({ type: 'UndoMergeInto', ticketId: SOURCE, actor: CUSTOMER, windowMs: WEEK_MS, now: MERGED_AT }).thenThrows(ForbiddenError));

    it('lets the source be posted to again', () => {
      const [undone] = decide(undoInto(MERGED_AT), fold(source));
      expect(fold([...source, undone!])).toMatchObject({ status: 'open', mergedInto: null });
    });
  });

  describe('when merges race (docs/tickets.md, merges under races)', () => {
    const source = [...SOURCE_OPEN, MERGED_INTO];
    const mergedOn = (ticketId: string, number: number, into: string, intoNumber: number, previousStatus: TicketStatus = 'closed'): TicketEvent => ({
      type: 'TicketMergedInto',
      data: {
        ...MERGED_INTO.data,
        ticketId,
        targetId: into,
        targetNumber: intoNumber,
        previousStatus,
        targetCustomerId: CUSTOMER.userId,
        mergedAt: MERGED_AT.toISOString(),
      },
    });
    /** The target merged on into #1050 after the source was merged into it, before it took the source. */
    const TARGET_MERGED_ON = [...TARGET_CLOSED, mergedOn(TARGET, 1043, 'third', 1050)];
    const cancel = (target: TicketEvent[], reopen = true, actor = AGENT): TicketCommand => ({
      type: 'CancelMergeInto',
      ticketId: SOURCE,
      actor,
      target: fold(target),
      reopen,
    });

    it('the target refuses a source once it is merged on itself: its words would be left in a ticket that only redirects', () =>
      given(TARGET_MERGED_ON).when(mergeFrom(source)).thenThrowsCode(ConflictError, 'MERGE_CONFLICT'));

    it('two tickets merged into each other at once: each refuses the other, so no cycle is written', () => {
      const targetIntoSource = [...TARGET_CLOSED, mergedOn(TARGET, 1043, SOURCE, 1042)];
      given(targetIntoSource).when(mergeFrom(source)).thenThrowsCode(ConflictError, 'MERGE_CONFLICT');
      given(source)
        .when({ type: 'MergeFrom', ticketId: SOURCE, actor: AGENT, source: fold(targetIntoSource), reopen: false, now: MERGED_AT })
        .thenThrowsCode(ConflictError, 'MERGE_CONFLICT');
    });

    it('a target deleted meanwhile refuses the source with the same code', () =>
      given([...TARGET_CLOSED, { type: 'TicketDeleted', data: { ticketId: TARGET, number: 1043, customerId: CUSTOMER.userId } }])
        .when(mergeFrom(source))
        .thenThrowsCode(ConflictError, 'MERGE_CONFLICT'));

    it('the source refuses a target merged into it since the handler loaded that target, before a cycle is written', () => {
      const tookTarget = decide(
        {
          type: 'MergeFrom',
          ticketId: SOURCE,
          actor: AGENT,
          source: fold([...TARGET_CLOSED, mergedOn(TARGET, 1043, SOURCE, 1042)]),
          reopen: false,
          now: MERGED_AT,
        },
        fold(SOURCE_OPEN),
      );
      given([...SOURCE_OPEN, ...tookTarget])
        .when(mergeInto(AGENT, fold(TARGET_CLOSED)))
        .thenThrowsCode(ConflictError, 'MERGE_CONFLICT');
    });

    it('a target that took the source before it merged on decides nothing again: the source’s words went on with it', () => {
      const tookSource = [...TARGET_CLOSED, ...mergedFromOf(TARGET_CLOSED, source), mergedOn(TARGET, 1043, 'third', 1050, 'open')];
      given(tookSource).when(mergeFrom(source)).then([]);
      given(source).when(cancel(tookSource)).thenThrowsCode(ConflictError, 'TICKET_MERGED');
    });

    it('takes the merge back on the source with the reason, giving back the status it had', () => {
      const [undone] = given(source).when(cancel(TARGET_MERGED_ON)).result();
      expect(undone).toEqual({
        type: 'TicketMergeIntoUndone',
        data: {
          ticketId: SOURCE,
          targetId: TARGET,
          targetNumber: 1043,
          restoredStatus: 'open',
          cancelled: { reason: 'target_merged', targetMergedInto: 1050 },
        },
      });
      expect(fold([...source, undone!])).toMatchObject({ status: 'open', mergedInto: null });
    });

    it('gives an open source back resolved when its customer’s open-ticket claim is held by another ticket by then', () => {
      expect(given(source).when(cancel(TARGET_MERGED_ON, false)).result()[0]!.data).toMatchObject({ restoredStatus: 'resolved' });
      const wasClosed = [...SOURCE_OPEN, status(SOURCE, 'open', 'closed'), mergedOn(SOURCE, 1042, TARGET, 1043)];
      expect(given(wasClosed).when(cancel(TARGET_MERGED_ON, false)).result()[0]!.data).toMatchObject({ restoredStatus: 'closed' });
    });

    it('names a deleted target as the reason', () =>
      expect(
        given(source)
          .when(cancel([...TARGET_CLOSED, { type: 'TicketDeleted', data: { ticketId: TARGET, number: 1043, customerId: CUSTOMER.userId } }]))
          .result()[0]!.data,
      ).toMatchObject({ cancelled: { reason: 'target_deleted' } }));

    it('refuses while the target can still take the source, and decides nothing once the merge is taken back or undone', () => {
      given(source).when(cancel(TARGET_CLOSED)).thenThrowsCode(ConflictError, 'TICKET_MERGED');
      given(SOURCE_OPEN).when(cancel(TARGET_MERGED_ON)).then([]);
      const [undone] = decide(cancel(TARGET_MERGED_ON), fold(source));
      given([...source, undone!])
        .when(cancel(TARGET_MERGED_ON))
        .then([]);
    });

    it('is for staff only', () =>
      given(source)
        .when(cancel(TARGET_MERGED_ON, true, CUSTOMER))
        .thenThrows(ForbiddenError));
  });

  describe('when the source holds more than one event carries (docs/tickets.md, large merges)', () => {
    const LONG = 'x'.repeat(1900);
    const many = (count: number): TicketEvent[] => [
      opened(SOURCE, 1042),
      ...Array.from({ length: count }, (_, index) => {
        const event = posted(SOURCE, `s${index + 1}`, index % 2 === 0 ? CUSTOMER : AGENT);
        return { ...event, data: { ...event.data, content: LONG } } as TicketEvent;
      }),
      MERGED_INTO,
    ];
    /** Runs the target's half to its end as the handler does: one decision per append, until nothing is left. */
    const copyAll = (target: TicketEvent[], source: TicketEvent[]) => {
      const written: TicketEvent[] = [];
      for (let part = 0; part < 1000; part++) {
        const events = decide({ ...mergeFrom(source), continuing: part > 0 } as TicketCommand, fold([...target, ...written]));
        if (events.length === 0) return written;
        written.push(...events);
      }
      throw new Error('the merge never ended');
    };
    const SOURCE_MANY = many(600);

    it('copies it in events of at most the byte budget each, the first naming how many come in all, in the source order', () => {
      const written = copyAll(TARGET_CLOSED, SOURCE_MANY);
      expect(written.length).toBeGreaterThan(3);
      expect(written.map((event) => event.type)).toEqual(['TicketMergedFrom', ...written.slice(1).map(() => 'MergedMessagesCopied')]);
      expect(written[0]!.data).toMatchObject({ messageCount: 600, reopenedFrom: 'closed' });
      for (const event of written) expect(Buffer.byteLength(JSON.stringify(event.data))).toBeLessThan(MERGE_COPY_BYTES + 4096);
      const copied = written.flatMap((event) => (event.data as { messages: Array<{ messageId: string }> }).messages.map((m) => m.messageId));
      expect(copied).toEqual(Array.from({ length: 600 }, (_, index) => `s${index + 1}`));
      const target = fold([...TARGET_CLOSED, ...written]);
      expect(target.kind === 'live' && target.mergedFrom[0]).toMatchObject({ ticketId: SOURCE, remaining: 0, publicCount: 600 });
      expect(target.kind === 'live' && [target.messages.size, target.lastSeq, target.status]).toEqual([601, 601, 'open']);
    });

    it('continues a copy cut short where it stopped, and a small merge stays one event without a count', () => {
      const first = decide(mergeFrom(SOURCE_MANY), fold(TARGET_CLOSED));
      const rest = copyAll([...TARGET_CLOSED, ...first], SOURCE_MANY);
      expect(rest[0]!.type).toBe('MergedMessagesCopied');
      expect([...first, ...rest].flatMap((event) => (event.data as { messages: unknown[] }).messages)).toHaveLength(600);
      const small = decide(mergeFrom([...SOURCE_OPEN, MERGED_INTO]), fold(TARGET_CLOSED));
      expect(small).toHaveLength(1);
      expect(small[0]!.data).not.toHaveProperty('messageCount');
    });

    it('ends a continuing copy whose merge was undone between its appends, rather than starting it again', () => {
      const first = decide(mergeFrom(SOURCE_MANY), fold(TARGET_CLOSED));
      const undone = decide({ type: 'UndoMergeFrom', ticketId: TARGET, actor: AGENT, sourceId: SOURCE }, fold([...TARGET_CLOSED, ...first]));
      expect(decide({ ...mergeFrom(SOURCE_MANY), continuing: true } as TicketCommand, fold([...TARGET_CLOSED, ...first, ...undone]))).toEqual([]);
    });

    it('undoes a merge whose copies’ ids do not fit one event in bounded parts, each decided on the ticket as it then stands (as undoing again after a crash does), then ends it', () => {
      const LONG_ID = 'message-0123456789abcdef0123456789';
      const source: TicketEvent[] = [
        opened(SOURCE, 1042),
        ...Array.from({ length: 9000 }, (_, index) => posted(SOURCE, `${LONG_ID}-${index}`, CUSTOMER, index % 3 === 0)),
        MERGED_INTO,
      ];
      const merged = [...TARGET_CLOSED, ...copyAll(TARGET_CLOSED, source)];
      const undo: TicketCommand = { type: 'UndoMergeFrom', ticketId: TARGET, actor: AGENT, sourceId: SOURCE };
      const undone: TicketEvent[] = [];
      for (let part = 0; part < 100; part++) {
        const events = decide(undo, fold([...merged, ...undone]));
        if (events.length === 0) break;
        undone.push(...events);
      }
      expect(undone.map((event) => event.type)).toEqual([...undone.slice(0, -1).map(() => 'MergedMessagesRemoved'), 'TicketMergeFromUndone']);
      expect(undone.length).toBeGreaterThan(1);
      for (const event of undone) expect(Buffer.byteLength(JSON.stringify(event.data))).toBeLessThan(MERGE_COPY_BYTES + 4096);
      const removed = undone.flatMap((event) => (event.data as { messageIds: string[] }).messageIds);
      expect(new Set(removed).size).toBe(9000);
      expect(undone.reduce((sum, event) => sum + (event.data as { publicCount: number }).publicCount, 0)).toBe(6000);
      expect(undone.at(-1)!.data).toMatchObject({ restoredStatus: 'closed' });
      const target = fold([...merged, ...undone]);
      expect(target.kind === 'live' && [target.messages.size, target.mergedFrom, target.status]).toEqual([1, [], 'closed']);
    });

    it('refuses to merge on a ticket still taking a merge, whose later copies would miss the ticket it went to', () => {
      const first = decide(mergeFrom(SOURCE_MANY), fold(TARGET_CLOSED));
      const other = fold([opened('third', 1050)]);
      expect(() => decide({ type: 'MergeInto', ticketId: TARGET, actor: AGENT, target: other, now: MERGED_AT }, fold([...TARGET_CLOSED, ...first]))).toThrow(
        expect.objectContaining({ code: 'MERGE_CONFLICT' }),
      );
    });
  });

  describe('when related to another ticket', () => {
    const relate = (actor: TicketActor, other: TicketState, linked = true): TicketCommand => ({ type: 'LinkTicket', ticketId: SOURCE, actor, other, linked });
    const LINKED: TicketEvent = { type: 'TicketLinked', data: { ticketId: SOURCE, otherId: TARGET, otherNumber: 1043 } };

    it('records the other ticket on this side, once, for staff only, of any customer', () => {
      given(SOURCE_OPEN)
        .when(relate(AGENT, fold(TARGET_CLOSED)))
        .then([LINKED]);
      given([...SOURCE_OPEN, LINKED])
        .when(relate(AGENT, fold(TARGET_CLOSED)))
        .then([]);
      given(SOURCE_OPEN)
        .when(relate(CUSTOMER, fold(TARGET_CLOSED)))
        .thenThrows(ForbiddenError);
      given(SOURCE_OPEN)
        .when(relate(AGENT, fold([opened(TARGET, 1043, OTHER_CUSTOMER.userId)])))
        .then([LINKED]);
      given(SOURCE_OPEN)
        .when(relate(AGENT, fold(SOURCE_OPEN)))
        .thenThrows(ValidationError);
    });

    it('removes the relation, and decides nothing when there is none', () => {
      given([...SOURCE_OPEN, LINKED])
        .when(relate(AGENT, fold(TARGET_CLOSED), false))
        .then([{ type: 'TicketUnlinked', data: LINKED.data } as TicketEvent]);
      given(SOURCE_OPEN)
        .when(relate(AGENT, fold(TARGET_CLOSED), false))
        .then([]);
    });
  });

  describe('when messages are moved to a new ticket (split)', () => {
    const moveOut = (messageId: string, withFollowing: boolean, actor = AGENT, title = 'New problem'): Extract<TicketCommand, { type: 'MoveOut' }> => ({
      type: 'MoveOut',
      ticketId: SOURCE,
      actor,
      messageId,
      withFollowing,
      newTicketId: 'new',
      newNumber: 1050,
      title,
    });
    // s6 answers what stays whichever customer messages move, so the split may resolve the ticket.
    const conversation = [...SOURCE_OPEN, posted(SOURCE, 's4', AGENT), posted(SOURCE, 's5', CUSTOMER), posted(SOURCE, 's6', AGENT)];
    /** The new ticket's command, from the old ticket's opening and its `MessagesMovedOut`. */
    const openSplitOf = (out: TicketEvent | undefined, from: TicketEvent = opened(SOURCE, 1042)): TicketCommand => ({
      type: 'OpenSplit',
      ticketId: 'new',
      actor: AGENT,
      sourceOpened: (from as Extract<TicketEvent, { type: 'TicketOpened' }>).data,
      movedOut: (out as Extract<TicketEvent, { type: 'MessagesMovedOut' }>).data,
      sla: null,
    });

    it('moves the message and, if asked, the customer’s later ones (not staff’s), and resolves the open ticket', () => {
      const events = given(conversation).when(moveOut('s3', true)).result();
      expect(events).toMatchObject([
        {
          type: 'MessagesMovedOut',
          data: { newTicketId: 'new', newNumber: 1050, title: 'New problem', messages: [{ messageId: 's3' }, { messageId: 's5' }], publicCount: 2 },
        },
        { type: 'TicketStatusChanged', data: { from: 'open', to: 'resolved' } },
      ]);
      const after = fold([...conversation, ...events]);
      expect(after.kind === 'live' && [...after.messages.keys()].sort()).toEqual(['s1', 's2', 's4', 's6']);
      expect(given(conversation).when(moveOut('s3', false)).result()[0]!.data).toMatchObject({ messages: [{ messageId: 's3' }] });
    });

    describe('never resolves a question nobody answered (issue 50)', () => {
      const unanswered = (events: TicketEvent[], messageId: string, withFollowing = false) =>
        given(events).when(moveOut(messageId, withFollowing)).thenThrowsCode(ConflictError, 'UNANSWERED_QUESTION');

      it('refuses a split of an open ticket whose customer waits on what stays: their opening, or a later message', () => {
        // Opened with a question, then a second problem: moving the second out would resolve the first unanswered.
        unanswered([opened(SOURCE, 1042), posted(SOURCE, 's1', CUSTOMER)], 's1');
        // An internal note answers nothing.
        unanswered(SOURCE_OPEN, 's3');
        // Answered once, then the customer wrote again and that message stays.
        unanswered([...SOURCE_OPEN, posted(SOURCE, 's4', AGENT), posted(SOURCE, 's5', CUSTOMER), posted(SOURCE, 's7', CUSTOMER)], 's5');
        // The reply that answered them moves away with the split.
        unanswered([...SOURCE_OPEN, posted(SOURCE, 's4', AGENT)], 's4');
      });

      it('splits when every customer word that stays was answered, or all of theirs move', () => {
        const answered = [...SOURCE_OPEN, posted(SOURCE, 's4', AGENT), posted(SOURCE, 's5', CUSTOMER)];
        expect(given(answered).when(moveOut('s5', false)).result()).toMatchObject([
          { type: 'MessagesMovedOut' },
          { type: 'TicketStatusChanged', data: { to: 'resolved' } },
        ]);
        expect(given(answered).when(moveOut('s3', true)).result()[0]!.data).toMatchObject({ messages: [{ messageId: 's3' }, { messageId: 's5' }] });
      });

      it('takes words the desk resolved the ticket after as settled: a reopening new problem moves out, a later question left behind does not', () => {
        const thanks = [...SOURCE_OPEN, posted(SOURCE, 's4', AGENT), posted(SOURCE, 's5', CUSTOMER), status(SOURCE, 'open', 'resolved')];
        const reopenedBy = (messageId: string): TicketEvent[] => [
          { type: 'TicketStatusChanged', data: { ticketId: SOURCE, from: 'resolved', to: 'open', reason: 'customer-replied' } },
          posted(SOURCE, messageId, CUSTOMER),
        ];
        expect(
          given([...thanks, ...reopenedBy('s6')])
            .when(moveOut('s6', false))
            .result()[1],
        ).toMatchObject({ data: { to: 'resolved' } });
        unanswered([...thanks, ...reopenedBy('s6'), posted(SOURCE, 's7', CUSTOMER)], 's7');
      });

      it('splits a ticket that is not open whatever waits there: the split resolves nothing', () => {
        const resolved = [...SOURCE_OPEN, status(SOURCE, 'open', 'resolved')];
        expect(
          given(resolved)
            .when(moveOut('s3', false))
            .result()
            .map((event) => event.type),
        ).toEqual(['MessagesMovedOut']);
      });
    });

    it('is for staff, needs a title and a message of the ticket itself', () => {
      given(conversation)
        .when(moveOut('s3', false, CUSTOMER))
        .thenThrows(ForbiddenError);
      given(conversation)
        .when(moveOut('s3', false, AGENT, '  '))
        .thenThrows(ValidationError);
      given(conversation).when(moveOut('gone', false)).thenThrows(NotFoundError);
    });

    it('refuses another customer’s message an admin’s merge brought: it is for staff only in this ticket', () => {
      const foreignSource = [opened(SOURCE, 1042, OTHER_CUSTOMER.userId), posted(SOURCE, 's1', OTHER_CUSTOMER), MERGED_INTO];
      const [mergedIn] = decide(mergeFrom(foreignSource, true, ADMIN), fold(TARGET_CLOSED));
      given([...TARGET_CLOSED, mergedIn!])
        .when({ ...moveOut('s1', false, ADMIN), ticketId: TARGET })
        .thenThrowsCode(ConflictError, 'MERGED_MESSAGE');
    });

    describe('a copy a merge brought (docs/tickets.md: copies move on)', () => {
      const [mergedIn] = mergedFromOf(TARGET_CLOSED, [...SOURCE_OPEN, MERGED_INTO]);
      // The agent answers the reopened target, so a split may resolve it.
      const merged = [...TARGET_CLOSED, mergedIn!, posted(TARGET, 't2', AGENT)];
      const moveCopy = (messageId: string, withFollowing: boolean): TicketCommand => ({ ...moveOut(messageId, withFollowing), ticketId: TARGET });

      it('moves it, with the customer’s later copies if asked, naming them as copies', () => {
        const [out] = given(merged).when(moveCopy('s1', true)).result();
        expect(out!.data).toMatchObject({ messages: [{ messageId: 's1' }, { messageId: 's3' }], publicCount: 2, copies: ['s1', 's3'] });
        expect(given(conversation).when(moveOut('s3', false)).result()[0]!.data).not.toHaveProperty('copies');
      });

      it('then an unmerge takes back only the copies still here, and counts only those', () => {
        // The merge reopened the target; the split resolves it, so the unmerge leaves that status as it is.
        const after = [...merged, ...given(merged).when(moveCopy('s3', false)).result()];
        given(after)
          .when({ type: 'UndoMergeFrom', ticketId: TARGET, actor: AGENT, sourceId: SOURCE })
          .then([
            {
              type: 'TicketMergeFromUndone',
              data: { ticketId: TARGET, sourceId: SOURCE, sourceNumber: 1042, messageIds: ['s1', 's2'], publicCount: 1, restoredStatus: null },
            },
          ]);
      });

      it('then the new ticket and the source, once unmerged, hold the same message and cannot be merged', () => {
        const [out] = given(merged).when(moveCopy('s3', false)).result();
        const split = fold(decide(openSplitOf(out, TARGET_CLOSED[0]), initialState));
        given(SOURCE_OPEN)
          .when({ type: 'MergeInto', ticketId: SOURCE, actor: AGENT, target: split, now: MERGED_AT })
          .thenThrowsCode(ConflictError, 'SHARED_MESSAGES');
      });

      it('cannot be edited: it keeps the words it had when it came', () =>
        given(merged)
          .when({ type: 'EditMessage', ticketId: TARGET, messageId: 's1', actor: CUSTOMER, content: 'Changed', now: new Date('2026-11-20T09:01:00.000Z') })
          .thenThrowsCode(ConflictError, 'COPIED_MESSAGE'));

      it('merged back after it was moved out, is here again, not "moved"', () => {
        const [out] = given(conversation).when(moveOut('s3', false)).result();
        const split = decide(openSplitOf(out), initialState);
        const home = fold([...conversation, out!]);
        const [mergedAway] = decide({ type: 'MergeInto', ticketId: 'new', actor: AGENT, target: home, now: MERGED_AT }, fold(split));
        const [back] = decide(
          { type: 'MergeFrom', ticketId: SOURCE, actor: AGENT, source: fold([...split, mergedAway!]), reopen: false, now: MERGED_AT },
          home,
        );
        expect(home).toMatchObject({ movedOut: { s3: { ticketId: 'new' } } });
        expect((fold([...conversation, out!, back!]) as { movedOut: object }).movedOut).toEqual({});
      });
    });

    it('opens the new ticket from the moved-out event once, with the messages as its own conversation', () => {
      const [out] = given(conversation).when(moveOut('s3', true)).result();
      const openSplit = openSplitOf(out);
      const events = decide(openSplit, initialState);
      expect(events).toMatchObject([
        { type: 'TicketOpened', data: { ticketId: 'new', number: 1050, title: 'New problem', description: 'text of s3', customerId: CUSTOMER.userId } },
        { type: 'MessagesMovedIn', data: { sourceNumber: 1042 } },
      ]);
      expect(fold(events)).toMatchObject({ lastSeq: 2, status: 'open' });
      expect(decide(openSplit, fold(events))).toEqual([]);
    });

    it('describes the new ticket by the first moved message its customer may read, never by an internal note', () => {
      const notes = [...conversation, posted(SOURCE, 'n1', AGENT, true)];
      const openFrom = (messageId: string, title = 'New problem') => {
        const [out] = given(notes)
          .when(moveOut(messageId, false, AGENT, title))
          .result();
        return decide(openSplitOf(out), initialState)[0]!.data;
      };
      expect(openFrom('n1', 'Firmware')).toMatchObject({ title: 'Firmware', description: 'Firmware' });
      expect(openFrom('s3')).toMatchObject({ description: 'text of s3' });
    });

    it('moves on a message a split brought, naming it as a copy', () => {
      const [out] = given(conversation).when(moveOut('s3', false)).result();
      const split = [...decide(openSplitOf(out), initialState), posted('new', 'r1', AGENT)];
      expect(
        given(split)
          .when({ ...moveOut('s3', false), ticketId: 'new', newTicketId: 'newer', newNumber: 1051 })
          .result()[0]!.data,
      ).toMatchObject({
        ticketId: 'new',
        messages: [{ messageId: 's3' }],
        copies: ['s3'],
      });
    });

    describe('service levels', () => {
      const at = (minute: number) => `2026-11-20T09:${String(minute).padStart(2, '0')}:00.000Z`;
      // s2 is a note: only s4 answers the customer; s3 was answered by it, s5 waits. Staff resolved the
      // ticket with s5 waiting, so a split may leave s5 there: it resolves nothing.
      const timed = [
        opened(SOURCE, 1042),
        posted(SOURCE, 's1', CUSTOMER, false, at(1)),
        posted(SOURCE, 's2', AGENT, true, at(2)),
        posted(SOURCE, 's3', CUSTOMER, false, at(3)),
        posted(SOURCE, 's4', AGENT, false, at(4)),
        posted(SOURCE, 's5', CUSTOMER, false, at(5)),
        status(SOURCE, 'open', 'resolved'),
      ];
      const waitingSince = (events: TicketEvent[], command: TicketCommand) =>
        (given(events).when(command).result()[0] as Extract<TicketEvent, { type: 'MessagesMovedOut' }>).data.waitingSince;
      const POLICY = {
        policyId: 'standard',
        policyName: 'Standard',
        version: 3,
        calendarName: null,
        hours: null,
        targets: { firstResponse: 60, nextResponse: 120, resolution: 480 },
        pauseStatuses: ['pending_customer' as const],
        warnPercent: 80,
      };
      const openSplit = (events: TicketEvent[], command: TicketCommand, sla: typeof POLICY | null): TicketCommand => ({
        type: 'OpenSplit',
        ticketId: 'new',
        actor: AGENT,
        sourceOpened: (opened(SOURCE, 1042) as Extract<TicketEvent, { type: 'TicketOpened' }>).data,
        movedOut: (given(events).when(command).result()[0] as Extract<TicketEvent, { type: 'MessagesMovedOut' }>).data,
        sla,
      });

      it('notes when the customer began waiting among the moved messages: their first one no public staff reply followed', () => {
        expect(waitingSince(timed, moveOut('s3', true))).toBe(at(5));
        expect(waitingSince(timed, moveOut('s4', true))).toBe(at(5));
        expect(waitingSince(timed, moveOut('s3', false))).toBeNull();
        expect(waitingSince(timed, moveOut('s4', false))).toBeNull();
        // Before any public reply (the note answers nothing) the customer waits since their first moved message.
        expect(waitingSince([...timed.slice(0, 4), status(SOURCE, 'open', 'resolved')], moveOut('s1', true))).toBe(at(1));
      });

      it('applies the policy chosen at the split in the opening, its clocks started where the customer began waiting', () => {
        expect(
          given([])
            .when(openSplit(timed, moveOut('s3', true), POLICY))
            .result(),
        ).toContainEqual({
          type: 'SlaPolicyApplied',
          data: { ticketId: 'new', policy: POLICY, startsAt: at(5) },
        });
        // Nothing waits: the clocks start with the opening, as a new ticket's do.
        expect(
          given([])
            .when(openSplit(timed, moveOut('s3', false), POLICY))
            .result(),
        ).toContainEqual({
          type: 'SlaPolicyApplied',
          data: { ticketId: 'new', policy: POLICY },
        });
        expect(
          given([])
            .when(openSplit(timed, moveOut('s3', true), null))
            .result()
            .map((event) => event.type),
        ).toEqual(['TicketOpened', 'MessagesMovedIn']);
      });
    });
  });
});
