/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT, CUSTOMER, message, ticket } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { HistoryPanel, IntegrityLine, Scrubber, TicketAsOf, Timeline } from './HistoryPanel';
import type { HistoryEntry, TicketHistory, TicketMoment } from '../../entities/ticket/types';

const entry = (revision: number, summary: string, overrides: Partial<HistoryEntry> = {}): HistoryEntry => ({
  revision,
  position: 10 + revision,
  eventId: `event-${revision}`,
  type: 'MessagePosted',
  at: `2026-11-21T09:0${revision}:00.000Z`,
  actor: { userId: AGENT._id, username: 'alice_agent', name: 'Alice Agent', role: 'agent', platform: 'web' },
  summary,
  data: {},
  hash: 'a'.repeat(64),
  ...overrides,
});

const EVENTS = [
  entry(0, 'Opened ticket #1001 "Printer jams" for Cara Customer (Hardware, priority high) via the web', {
    type: 'TicketOpened',
    actor: { userId: CUSTOMER._id, username: 'cara', name: 'Cara Customer', role: 'customer', platform: 'telegram' },
  }),
  entry(1, 'Assigned the ticket to Alice Agent', { type: 'AgentAssignedToTicket' }),
  entry(2, 'Cara Customer read the conversation up to message 1', { type: 'MessagesRead' }),
];
const HISTORY: TicketHistory = { ticketId: 't1', number: 1001, events: EVENTS, integrity: { ok: true, head: 'abcdef0123456789'.repeat(4), firstBreak: null } };

const moment = (overrides: Partial<TicketMoment> = {}): TicketMoment => ({
  revision: 1,
  position: 11,
  at: '2026-11-21T09:01:00.000Z',
  latestRevision: 2,
  deleted: false,
  ticket: ticket({ status: 'in_progress', outcomeMessage: null }),
  messages: [],
  satisfaction: null,
  ...overrides,
});

describe('History panel', () => {
  it('when the chain holds, then it says so with the head link; when it breaks, then the revision and reason are named', () => {
    const { unmount } = renderWeb(<IntegrityLine history={HISTORY} />);
    expect(screen.getByText('Verified')).toBeInTheDocument();
    expect(screen.getByText(/Hash chain intact over 3 events/)).toBeInTheDocument();
    unmount();
    const broken: TicketHistory = {
      ...HISTORY,
      integrity: {
        ok: false,
        head: null,
        firstBreak: {
          chain: 'stream',
          streamId: 'ticket-t1',
          revision: 1,
          position: 11,
          eventId: 'e',
          type: 'AgentAssignedToTicket',
          reason: 'the stored hash does not match',
          expected: 'x',
          stored: 'y',
        },
      },
    };
    renderWeb(<IntegrityLine history={broken} />);
    expect(screen.getByRole('alert')).toHaveTextContent('Hash chain broken at revision 1 (AgentAssignedToTicket): the stored hash does not match.');
  });

  it('when the timeline shows, then each event has its time, actor, role, platform and summary, and a click selects it', async () => {
    const onSelect = jest.fn();
    renderWeb(<Timeline events={EVENTS} revision={1} onSelect={onSelect} />);
    const items = within(screen.getByRole('list', { name: 'Timeline' })).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent('Cara Customer');
    expect(items[0]).toHaveTextContent('customer');
    expect(items[0]).toHaveTextContent('Telegram');
    expect(items[1]).toHaveAttribute('aria-current', 'step');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Revision 2: Cara Customer read the conversation up to message 1' }));
    expect(onSelect).toHaveBeenCalledWith(2);
  });

  it('when the scrubber moves, then previous, next and latest choose their revisions and the end follows new events', async () => {
    const onSelect = jest.fn();
    const user = userEvent.setup();
    const { rerender } = renderWeb(<Scrubber revision={1} latest={2} entry={EVENTS[1]} onSelect={onSelect} />);
    const slider = screen.getByRole('slider', { name: "Moment in the ticket's history" });
    expect(slider).toHaveValue('1');
    expect(slider).toHaveAttribute('aria-valuetext', 'Revision 1 of 2: Assigned the ticket to Alice Agent');
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(onSelect).toHaveBeenLastCalledWith(0);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(onSelect).toHaveBeenLastCalledWith(null);
    await user.click(screen.getByRole('button', { name: 'Latest' }));
    expect(onSelect).toHaveBeenLastCalledWith(null);
    rerender(<Scrubber revision={0} latest={2} entry={EVENTS[0]} onSelect={onSelect} />);
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
  });

  it('when the ticket is shown as of a revision, then its facts and conversation are those of then, and edits reveal earlier versions', async () => {
    const edited = {
      ...message({ _id: 'm1', content: 'Tray two, sorry', editedAt: '2026-11-21T09:04:00.000Z' }),
      versions: [
        { content: 'Tray one', at: '2026-11-21T09:03:00.000Z' },
        { content: 'Tray two, sorry', at: '2026-11-21T09:04:00.000Z' },
      ],
    };
    const rating = { episode: 1, score: 4, comment: 'Quick <b>fix</b>', channel: 'telegram' as const, ended: null };
    renderWeb(
      <TicketAsOf moment={moment({ messages: [edited], ticket: ticket({ status: 'resolved', outcomeMessage: 'Roller replaced' }), satisfaction: rating })} />,
    );
    const region = screen.getByRole('region', { name: 'Ticket as of revision 1' });
    expect(region).toHaveTextContent('resolved');
    expect(region).toHaveTextContent('Roller replaced');
    // The rating as it stood then, its comment as text.
    expect(region).toHaveTextContent('4 of 5 on Telegram – "Quick <b>fix</b>" (resolution 1)');
    expect(screen.getByText('Tray two, sorry')).toBeInTheDocument();
    expect(screen.queryByText('Tray one')).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: '(edited: show 1 earlier version)' }));
    expect(within(screen.getByRole('list', { name: 'Earlier versions' })).getByText('Tray one')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '(edited: hide 1 earlier version)' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('when the last moment is the deletion, then a banner says the ticket is shown as it was just before', () => {
    renderWeb(<TicketAsOf moment={moment({ deleted: true })} />);
    expect(screen.getByRole('alert')).toHaveTextContent('The ticket was deleted at this moment; it is shown as it was just before.');
    expect(screen.getByText('No messages yet at this moment.')).toBeInTheDocument();
  });

  it('when closed, then it explains itself and loads nothing until opened', () => {
    const fetchSpy = jest.spyOn(globalThis, 'fetch');
    renderWeb(<HistoryPanel ticketId="t1" version="v1" />, { session: signedInAs(AGENT) });
    expect(screen.getByText(/Every change to this ticket, who made it and when/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show history' })).toHaveAttribute('aria-expanded', 'false');
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
  });
});
