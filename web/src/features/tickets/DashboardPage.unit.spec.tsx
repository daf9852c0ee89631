/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT, CUSTOMER, STATS, ticket } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { CategoriesCard, HOW_TICKETS_ARRIVE, RecentActivityCard, StatsGrid, TicketListCard } from './DashboardPage';

const SIX = Array.from({ length: 6 }, (_, index) =>
  ticket({ _id: `t${index}`, ticketId: 1001 + index, title: `Problem ${index}`, status: index === 0 ? 'in_progress' : 'open' }),
);

describe('Dashboard', () => {
  it('when staff look, then the eight stat cards carry their labels, values and hints, and open and resolved add up to the total', () => {
    renderWeb(<StatsGrid stats={STATS} />);
    const card = (name: string) => screen.getByRole('region', { name });
    expect(card('Total Tickets')).toHaveTextContent('12');
    // docs/product.md section 4: open, in progress and pending customer are all open (4 + 3 + 1).
    expect(card('Open Tickets')).toHaveTextContent('8Open, in progress or waiting on customer');
    expect(card('In Progress')).toHaveTextContent('3Of the open tickets');
    expect(card('Resolved')).toHaveTextContent('4Resolved or closed');
    expect(card('Response Time')).toHaveTextContent('42mAverage response time');
    expect(card('Resolution Time')).toHaveTextContent('1dAverage resolution time');
    expect(card("Today's Tickets")).toHaveTextContent('1Created today');
    expect(card('This Week')).toHaveTextContent('6Created this week');
  });

  it('when categories and activity are shown, then the top 6 categories and the first 5 entries appear', () => {
    renderWeb(
      <>
        <CategoriesCard stats={STATS} />
        <RecentActivityCard stats={STATS} />
      </>,
    );
    expect(screen.getByText('Category 6')).toBeInTheDocument();
    expect(screen.queryByText('Category 0')).not.toBeInTheDocument();
    expect(screen.getByText('6 tickets · 2h')).toBeInTheDocument();
    expect(screen.getByText('1 ticket · 2h')).toBeInTheDocument();
    expect(screen.getAllByRole('link')).toHaveLength(5);
  });

  it("when a customer has tickets, then 'Your Tickets' lists the first 5 with badge, status and date, and New Ticket opens the dialog", async () => {
    const onNewTicket = jest.fn();
    renderWeb(<TicketListCard user={CUSTOMER} tickets={SIX} onNewTicket={onNewTicket} />);
    expect(screen.getByRole('heading', { name: 'Your Tickets' })).toBeInTheDocument();
    const rows = screen.getAllByRole('listitem');
    expect(rows).toHaveLength(5);
    expect(within(rows[0]!).getByText('#1001')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('in progress')).toHaveClass('badge-default');
    expect(within(rows[1]!).getByText('open')).toHaveClass('badge-destructive');
    await userEvent.setup().click(screen.getByRole('button', { name: 'New Ticket' }));
    expect(onNewTicket).toHaveBeenCalled();
  });

  it('when the list is empty, then the empty state speaks to the role', () => {
    const { unmount } = renderWeb(<TicketListCard user={CUSTOMER} tickets={[]} onNewTicket={jest.fn()} />);
    expect(screen.getByText('No tickets yet')).toBeInTheDocument();
    expect(screen.getByText("You haven't created any support tickets yet.")).toBeInTheDocument();
    unmount();
    renderWeb(<TicketListCard user={AGENT} tickets={[]} onNewTicket={jest.fn()} />);
    expect(screen.getByRole('heading', { name: 'Recent Tickets' })).toBeInTheDocument();
    expect(screen.getByText('No tickets have been created yet.')).toBeInTheDocument();
    expect(screen.getByText(HOW_TICKETS_ARRIVE)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View All Tickets' })).toHaveAttribute('href', '/live-tickets');
  });
});
