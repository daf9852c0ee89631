import type { TicketEvent } from '../ticket/ticket';
import { type PlacedTicketEvent, type RunTimeRule, currentWait, decideTimeRule } from './time';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const ACTOR = { userId: 'system', role: 'admin' as const };
const RULE = { id: 'r1', name: 'Auto-close after 4 days', version: 3 };
const RESOLVED_IS = { field: 'status' as const, op: 'is' as const, values: ['resolved'] };

let position = 0;
const at = (ms: number, event: TicketEvent): PlacedTicketEvent => ({ id: `e${++position}`, position, occurredAt: new Date(ms).toISOString(), event });
const opened = (ms: number) =>
  at(ms, {
    type: 'TicketOpened',
    data: {
      ticketId: 't1',
      number: 1001,
      title: 'Invoice',
      description: 'x',
      categoryId: 'billing',
      priority: 'low',
      customerId: 'c1',
      customFieldValues: [],
      platform: 'web',
    },
  });
const status = (ms: number, from: string, to: string) => at(ms, { type: 'TicketStatusChanged', data: { ticketId: 't1', from, to } } as TicketEvent);

const close = (now: number): RunTimeRule => ({
  actor: ACTOR,
  rule: RULE,
  eventLabel: 'the ticket has matched for 4 days',
  conditions: [{ condition: RESOLVED_IS, label: 'status is Resolved' }],
  steps: [{ label: 'set the status to Closed', command: { type: 'ChangeTicketStatus', ticketId: 't1', actor: ACTOR, status: 'closed' } }],
  notify: [],
  after: { amount: 4, unit: 'days' },
  now: new Date(now),
});

describe('Time rule', () => {
  it('when a ticket turned resolved, then its wait starts at that change, and a change that ends the match ends the wait', () => {
    const resolved = status(T0 + 1000, 'open', 'resolved');
    const events = [opened(T0), resolved];
    expect(currentWait([RESOLVED_IS], events).wait).toEqual({ eventId: resolved.id, position: resolved.position, since: T0 + 1000 });
    expect(currentWait([RESOLVED_IS], [...events, status(T0 + 2000, 'resolved', 'open')]).wait).toBeNull();
  });

  it('when the wait is due, then the rule fires once for the wait, claimed by its first event; not before it is due', () => {
    const resolved = status(T0, 'open', 'resolved');
    const events = [opened(T0), resolved];
    expect(decideTimeRule(close(T0 + 4 * DAY - 1), events)).toEqual([]);
    const decided = decideTimeRule(close(T0 + 4 * DAY), events);
    expect(decided.map((event) => event.type)).toEqual(['RuleFired', 'TicketStatusChanged']);
    expect(decided[0]!.data).toMatchObject({ trigger: { eventId: resolved.id, position: resolved.position, event: 'time' } });
    // Appended, the run is its claim: a second timer (a restart, another process) decides nothing.
    const ran = [...events, ...decided.map((event) => at(T0 + 4 * DAY, event))];
    expect(decideTimeRule(close(T0 + 5 * DAY), ran)).toEqual([]);
  });

  it('when the ticket was reopened and resolved again, then the old wait is gone and the new one counts from the second resolution', () => {
    const events = [opened(T0), status(T0, 'open', 'resolved'), status(T0 + DAY, 'resolved', 'open'), status(T0 + 2 * DAY, 'open', 'resolved')];
    expect(decideTimeRule(close(T0 + 4 * DAY), events)).toEqual([]);
    expect(decideTimeRule(close(T0 + 6 * DAY), events).map((event) => event.type)).toEqual(['RuleFired', 'TicketStatusChanged']);
  });
});
