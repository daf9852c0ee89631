import type { Calendar } from './calendar';
import { type AppliedPolicy, type ClockEvent, currentClocks, evolveClock, initialClock, nextDueAt, viewTarget } from './clock';

const HOUR = 3600_000;
const at = (iso: string) => Date.parse(iso);
const nineToFive = [{ start: '09:00', end: '17:00' }];
/** Monday to Friday, 9 to 5, in Berlin (UTC+1 in January). */
const OFFICE: Calendar = { timeZone: 'Europe/Berlin', week: [[], nineToFive, nineToFive, nineToFive, nineToFive, nineToFive, []], holidays: [] };
const POLICY: AppliedPolicy = {
  policyId: 'standard',
  policyName: 'Standard',
  version: 1,
  calendarName: 'Office',
  hours: OFFICE,
  targets: { firstResponse: 60, nextResponse: 120, resolution: 8 * 60 },
  pauseStatuses: ['pending_customer'],
  warnPercent: 80,
};

const given = (events: ClockEvent[], policy: AppliedPolicy = POLICY) => events.reduce(evolveClock, initialClock(policy));
const view = (events: ClockEvent[], now: string, policy?: AppliedPolicy) =>
  Object.fromEntries(currentClocks(given(events, policy)).map((clock) => [clock.target, viewTarget(clock, at(now))]));

// Monday 19 January 2026, 10:00 Berlin.
const opened: ClockEvent = { type: 'TicketOpened', at: at('2026-01-19T09:00:00Z') };
const agentReply = (iso: string): ClockEvent => ({ type: 'MessagePosted', at: at(iso), senderRole: 'agent', isInternal: false });
const customerMessage = (iso: string): ClockEvent => ({ type: 'MessagePosted', at: at(iso), senderRole: 'customer', isInternal: false });
const status = (to: 'open' | 'in_progress' | 'pending_customer' | 'resolved' | 'closed', iso: string): ClockEvent => ({
  type: 'TicketStatusChanged',
  at: at(iso),
  to,
});

describe('SLA clock', () => {
  describe('when a ticket opens', () => {
    it('starts first response and resolution with due and warning times in business hours', () => {
      const state = given([opened]);
      const [first, resolution] = state.clocks;
      expect(new Date(first!.dueAt!).toISOString()).toBe('2026-01-19T10:00:00.000Z');
      expect(new Date(first!.warnAt!).toISOString()).toBe('2026-01-19T09:48:00.000Z');
      // 8 business hours from Monday 10:00: 7 on Monday, 1 on Tuesday from 9:00.
      expect(new Date(resolution!.dueAt!).toISOString()).toBe('2026-01-20T09:00:00.000Z');
      expect(new Date(nextDueAt(state)!).toISOString()).toBe('2026-01-19T10:00:00.000Z');
    });
    it('leaves out a target without minutes and does nothing without a policy', () => {
      expect(given([opened], { ...POLICY, targets: { firstResponse: null, nextResponse: null, resolution: 60 } }).clocks.map((clock) => clock.target)).toEqual([
        'resolution',
      ]);
      expect(given([opened], null as unknown as AppliedPolicy).clocks).toEqual([]);
    });
  });

  describe('first response', () => {
    it('is met by a public agent reply before it is due, not by an internal note', () => {
      const note: ClockEvent = { type: 'MessagePosted', at: at('2026-01-19T09:10:00Z'), senderRole: 'agent', isInternal: true };
      expect(view([opened, note], '2026-01-19T09:20:00Z').firstResponse!.state).toBe('running');
      const met = view([opened, note, agentReply('2026-01-19T09:30:00Z')], '2026-01-19T12:00:00Z').firstResponse!;
      expect(met).toMatchObject({ state: 'met', completedAt: '2026-01-19T09:30:00.000Z', remainingMs: null, breachedAt: null });
    });
    it('is breached once the due time passes, and stays breached when answered late', () => {
      expect(view([opened], '2026-01-19T09:59:00Z').firstResponse).toMatchObject({ state: 'running', remainingMs: 60_000 });
      expect(view([opened], '2026-01-19T10:35:00Z').firstResponse).toMatchObject({
        state: 'breached',
        remainingMs: -35 * 60_000,
        breachedAt: '2026-01-19T10:00:00.000Z',
      });
      expect(view([opened, agentReply('2026-01-19T11:00:00Z')], '2026-01-19T12:00:00Z').firstResponse).toMatchObject({
        state: 'breached',
        completedAt: '2026-01-19T11:00:00.000Z',
        breachedAt: '2026-01-19T10:00:00.000Z',
      });
    });
  });

  describe('next response', () => {
    it('starts with each customer message after an agent reply, one episode each', () => {
      const events = [opened, agentReply('2026-01-19T09:10:00Z'), customerMessage('2026-01-19T09:20:00Z'), customerMessage('2026-01-19T09:25:00Z')];
      const next = view(events, '2026-01-19T09:30:00Z').nextResponse!;
      expect(next).toMatchObject({ episode: 1, state: 'running', dueAt: '2026-01-19T11:20:00.000Z' });
      const later = [...events, agentReply('2026-01-19T10:00:00Z'), customerMessage('2026-01-19T10:05:00Z')];
      expect(view(later, '2026-01-19T10:06:00Z').nextResponse).toMatchObject({ episode: 2, state: 'running', dueAt: '2026-01-19T12:05:00.000Z' });
      expect(given(later).clocks.find((clock) => clock.target === 'nextResponse' && clock.episode === 1)?.completedAt).toBe(at('2026-01-19T10:00:00Z'));
    });
  });

  describe('pauses', () => {
    it('stops every running clock while pending the customer, across a weekend, and resumes with the time left', () => {
      // Friday 23 January 16:00 Berlin the ticket opens; 30 min later it waits for the customer until Monday 12:00.
      const friday: ClockEvent = { type: 'TicketOpened', at: at('2026-01-23T15:00:00Z') };
      const events = [friday, agentReply('2026-01-23T15:10:00Z'), status('pending_customer', '2026-01-23T15:30:00Z')];
      expect(view(events, '2026-01-26T10:00:00Z').resolution).toMatchObject({ state: 'paused', dueAt: null, remainingMs: 7.5 * HOUR });
      const resumed = [...events, status('in_progress', '2026-01-26T11:00:00Z')];
      // 7.5 business hours left from Monday 12:00: 5 on Monday, 2.5 on Tuesday from 9:00.
      expect(view(resumed, '2026-01-26T11:00:00Z').resolution).toMatchObject({ state: 'running', dueAt: '2026-01-27T10:30:00.000Z' });
    });
    it('keeps a breach that happened before the pause', () => {
      const events = [opened, status('pending_customer', '2026-01-19T10:30:00Z')];
      expect(view(events, '2026-01-22T10:00:00Z').firstResponse).toMatchObject({ state: 'breached', breachedAt: '2026-01-19T10:00:00.000Z' });
    });
  });

  describe('resolution', () => {
    it('is met at the resolution and starts again, as a new episode, when reopened', () => {
      const events = [opened, agentReply('2026-01-19T09:10:00Z'), status('resolved', '2026-01-19T12:00:00Z')];
      expect(view(events, '2026-01-19T13:00:00Z').resolution).toMatchObject({ state: 'met', episode: 1 });
      const reopened = [...events, status('open', '2026-01-20T09:00:00Z')];
      expect(view(reopened, '2026-01-20T09:00:00Z').resolution).toMatchObject({ state: 'running', episode: 2, dueAt: '2026-01-21T09:00:00.000Z' });
    });
  });

  describe('when the priority or category changes (docs/sla.md)', () => {
    const URGENT: AppliedPolicy = { ...POLICY, version: 2, targets: { firstResponse: 30, nextResponse: 60, resolution: 4 * 60 } };
    const changed = (iso: string, policy = URGENT): ClockEvent => ({ type: 'PolicyChanged', at: at(iso), policy });

    it('keeps each running episode’s start and counted time and gives it the new target', () => {
      const first = view([opened, changed('2026-01-19T09:10:00Z')], '2026-01-19T09:10:00Z').firstResponse!;
      expect(first).toMatchObject({
        state: 'running',
        episode: 1,
        startedAt: '2026-01-19T09:00:00.000Z',
        targetMinutes: 30,
        dueAt: '2026-01-19T09:30:00.000Z',
      });
    });

    it('breaches at the change an episode whose counted time already passes the new target, and leaves decided ones as they were', () => {
      const late = view([opened, changed('2026-01-19T09:40:00Z')], '2026-01-19T09:40:00Z').firstResponse!;
      expect(late).toMatchObject({ state: 'breached', breachedAt: '2026-01-19T09:40:00.000Z' });
      const met = view([opened, agentReply('2026-01-19T09:20:00Z'), changed('2026-01-19T09:40:00Z')], '2026-01-19T09:40:00Z').firstResponse!;
      expect(met).toMatchObject({ state: 'met', targetMinutes: 60 });
    });

    it('stays paused while paused, and starts the clocks at the change for a ticket that followed no policy', () => {
      const paused = view([opened, status('pending_customer', '2026-01-19T09:10:00Z'), changed('2026-01-19T09:20:00Z')], '2026-01-19T12:00:00Z');
      expect(paused.firstResponse).toMatchObject({ state: 'paused', targetMinutes: 30, remainingMs: 20 * 60_000 });
      const fresh = view([opened, changed('2026-01-19T09:20:00Z')], '2026-01-19T09:20:00Z', null as unknown as AppliedPolicy);
      expect(fresh.firstResponse).toMatchObject({ state: 'running', startedAt: '2026-01-19T09:20:00.000Z', dueAt: '2026-01-19T09:50:00.000Z' });
    });
  });
});
