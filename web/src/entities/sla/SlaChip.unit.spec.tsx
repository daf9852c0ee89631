/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { render, screen } from '@testing-library/react';
import type { SlaTargetView, TicketSla } from '#contract/sla';
import { SlaChip, spanText, targetNow, urgentTarget } from './SlaChip';

const NOW = Date.parse('2026-01-19T10:00:00.000Z');
const target = (overrides: Partial<SlaTargetView>): SlaTargetView => ({
  target: 'firstResponse',
  episode: 1,
  state: 'running',
  startedAt: '2026-01-19T09:00:00.000Z',
  targetMinutes: 120,
  dueAt: '2026-01-19T11:20:00.000Z',
  remainingMs: null,
  completedAt: null,
  breachedAt: null,
  ...overrides,
});
const sla = (targets: SlaTargetView[]): TicketSla => ({
  policyId: 'p',
  policyName: 'Standard',
  version: 2,
  calendarName: null,
  paused: false,
  nextDueAt: null,
  targets,
});

describe('SLA chip', () => {
  it('when a span is shown, then it reads in seconds, minutes, hours and days', () => {
    expect([spanText(40_000), spanText(35 * 60_000), spanText(80 * 60_000), spanText(3 * 24 * 3600_000)]).toEqual(['40 s', '35 m', '1 h 20 m', '3 d']);
  });

  it('when the clock passes the due time, then the same answer turns from due to breached', () => {
    const running = target({});
    expect(targetNow(running, NOW)).toEqual({ state: 'due', text: 'First response due in 1 h 20 m' });
    expect(targetNow(running, Date.parse('2026-01-19T10:30:00.000Z'))).toEqual({ state: 'soon', text: 'First response due in 50 m' });
    expect(targetNow(running, Date.parse('2026-01-19T11:55:00.000Z'))).toEqual({ state: 'breached', text: 'First response breached 35 m ago' });
    expect(targetNow(target({ target: 'resolution', state: 'paused', dueAt: null, remainingMs: 2 * 3600_000 }), NOW).text).toBe('Resolution paused, 2 h left');
  });

  it('when a ticket has several targets, then the chip shows the first due of the running ones', () => {
    const first = target({ dueAt: '2026-01-19T12:00:00.000Z' });
    const resolution = target({ target: 'resolution', dueAt: '2026-01-19T10:30:00.000Z' });
    const met = target({ target: 'nextResponse', state: 'met', completedAt: '2026-01-19T09:30:00.000Z' });
    expect(urgentTarget(sla([first, resolution, met]))).toBe(resolution);
    render(<SlaChip sla={sla([first, resolution, met])} now={NOW} />);
    expect(screen.getByText('Resolution due in 30 m')).toHaveAttribute('data-sla', 'soon');
  });
});
