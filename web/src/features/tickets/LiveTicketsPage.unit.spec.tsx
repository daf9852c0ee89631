/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, AGENT, listItem, ticket } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { FILTERS, LiveTicketCard, LiveTicketsTable, MergeSelected } from './LiveTicketsPage';
import { MergeConfirm } from './MergePanel';

const ASSIGNED = { _id: AGENT._id, username: 'alice_agent', firstName: 'Alice', lastName: 'Agent' };

function renderCard(overrides = {}) {
  const handlers = { onOpen: jest.fn(), onAssign: jest.fn(), onStatus: jest.fn() };
  renderWeb(<LiveTicketCard ticket={listItem(overrides)} myId={AGENT._id} {...handlers} />);
  return { ...handlers, user: userEvent.setup(), card: screen.getByRole('article') };
}

describe('Live ticket card', () => {
  it('when unassigned, then it needs assignment and is styled for attention', () => {
    const { card } = renderCard();
    expect(screen.getByText('NEEDS ASSIGNMENT')).toBeInTheDocument();
    expect(card).toHaveClass('needs-attention');
    for (const text of ['#1001', 'high', 'Invoice shows the wrong amount', 'My March invoice charges me twice.', 'Cara Customer', 'Billing', 'Unassigned'])
      expect(screen.getByText(text)).toBeInTheDocument();
  });

  it.each(['resolved', 'closed'])('when %s without an assignee, then it is finished work and asks for nobody (issue 50)', (status) => {
    const { card } = renderCard({ status });
    expect(screen.queryByText('NEEDS ASSIGNMENT')).not.toBeInTheDocument();
    expect(card).not.toHaveClass('needs-attention');
  });

  it('when assigned, then it is coloured by priority and shows the assignee', () => {
    const { card } = renderCard({ assignedAgent: { ...ASSIGNED, _id: 'someone-else', username: 'bob' }, priority: 'urgent' });
    expect(card).toHaveClass('priority-card-red');
    expect(screen.queryByText('NEEDS ASSIGNMENT')).not.toBeInTheDocument();
    expect(screen.getByText('bob')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Assign to Me' })).toBeInTheDocument();
  });

  it('when it is already mine, then there is no Assign to Me', () => {
    renderCard({ assignedAgent: ASSIGNED });
    expect(screen.queryByRole('button', { name: 'Assign to Me' })).not.toBeInTheDocument();
  });

  it('when the card is clicked, then it opens; its buttons and status control do their own thing', async () => {
    const { card, user, onOpen, onAssign, onStatus } = renderCard();
    await user.click(screen.getByRole('button', { name: 'Assign to Me' }));
    expect(onAssign).toHaveBeenCalled();
    await user.selectOptions(screen.getByLabelText('Status of ticket #1001'), 'resolved');
    expect(onStatus).toHaveBeenCalledWith('resolved');
    expect(onOpen).not.toHaveBeenCalled();
    await user.click(card.querySelector('h3')!);
    expect(onOpen).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'View ticket #1001' }));
    expect(onOpen).toHaveBeenCalledTimes(2);
  });
});

describe('Live tickets table (issue 25)', () => {
  it('when shown as a table, then each ticket is a row with its priority, marker and actions', async () => {
    const handlers = { onOpen: jest.fn(), onAssign: jest.fn(), onStatus: jest.fn(), onSelect: jest.fn(), onSelectAll: jest.fn(), selected: new Set<string>() };
    renderWeb(
      <LiveTicketsTable
        tickets={[listItem({ unreadCount: 3 }), listItem({ _id: 't2', ticketId: 1002, title: 'Second', assignedAgent: ASSIGNED, waitingSince: null })]}
        myId={AGENT._id}
        {...handlers}
      />,
    );
    const user = userEvent.setup();
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.getAllByText('NEEDS ASSIGNMENT')).toHaveLength(1);
    expect(screen.getByText('alice_agent')).toBeInTheDocument();
    const [first, second] = screen.getAllByRole('row').slice(1);
    expect(first).toHaveTextContent('3 unread');
    expect(second).not.toHaveTextContent('unread');
    expect(first!.querySelector('time.waiting-since')).toHaveAttribute('title', expect.stringMatching(/^Waiting for us since /));
    expect(second).toHaveTextContent('—');
    await user.click(screen.getByRole('link', { name: 'Invoice shows the wrong amount' }));
    expect(handlers.onOpen).toHaveBeenCalledWith(expect.objectContaining({ ticketId: 1001 }));
    await user.click(screen.getByRole('button', { name: 'Assign to Me (ticket #1001)' }));
    expect(handlers.onAssign).toHaveBeenCalledWith(expect.objectContaining({ ticketId: 1001 }));
    expect(screen.queryByRole('button', { name: 'Assign to Me (ticket #1002)' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Select ticket #1002' }));
    expect(handlers.onSelect).toHaveBeenCalledWith(expect.objectContaining({ ticketId: 1002 }), true, false);
    await user.keyboard('{Shift>}');
    await user.click(screen.getByRole('checkbox', { name: 'Select ticket #1001' }));
    await user.keyboard('{/Shift}');
    expect(handlers.onSelect).toHaveBeenLastCalledWith(expect.objectContaining({ ticketId: 1001 }), true, true);
    await user.click(screen.getByRole('checkbox', { name: 'Select all tickets shown' }));
    expect(handlers.onSelectAll).toHaveBeenCalledWith(true);
  });

  it('when the Open filter is chosen, then it asks for what the sidebar calls open', () => {
    expect(FILTERS.find((filter) => filter.key === 'open')!.args).toEqual({ status: 'open,in_progress,pending_customer' });
  });

  it('when a one-click view is chosen, then it leaves resolved and closed tickets out', () => {
    const args = (key: string) => FILTERS.find((filter) => filter.key === key)!.args;
    expect(args('waiting')).toEqual({ assigned: 'me', waiting: true, status: 'open,in_progress,pending_customer' });
    expect(args('unassigned')).toEqual({ assigned: 'unassigned', status: 'open,in_progress,pending_customer' });
  });
});

describe('Merging two ticked rows (issue 36)', () => {
  const other = { _id: 'someone', username: 'dan', firstName: 'Dan', lastName: 'Other' };
  const renderBar = (tickets: Array<ReturnType<typeof listItem>>, role: string) => {
    const onMerging = jest.fn();
    renderWeb(<MergeSelected tickets={tickets} role={role} merging={false} onMerging={onMerging} onMerged={jest.fn()} />);
    return { onMerging, merge: screen.getByRole('button', { name: 'Merge' }) };
  };

  it('when one ticket is ticked, then Merge is not offered and says why', () => {
    const { merge } = renderBar([listItem({})], 'agent');
    expect(merge).toBeDisabled();
    expect(screen.getByText('Tick two tickets to merge them (1 ticked)')).toBeInTheDocument();
  });

  it('when an agent ticks two tickets of different customers, then Merge is not offered and says only an admin may', () => {
    const { merge } = renderBar([listItem({}), listItem({ _id: 't2', ticketId: 1002, customer: other })], 'agent');
    expect(merge).toBeDisabled();
    expect(screen.getByText('Only an admin can merge tickets of different customers')).toBeInTheDocument();
  });

  it('when an admin ticks two tickets of different customers, then Merge opens the confirmation', async () => {
    const { merge, onMerging } = renderBar([listItem({}), listItem({ _id: 't2', ticketId: 1002, customer: other })], 'admin');
    await userEvent.setup().click(merge);
    expect(onMerging).toHaveBeenCalledWith(true);
  });

  it('when the confirmation pairs tickets of different customers, then an admin is told what the merge will do and an agent may not confirm', () => {
    const pair = [ticket({}), ticket({ _id: 't2', ticketId: 1002, customer: other })] as const;
    const { unmount } = renderWeb(<MergeConfirm tickets={pair} onMerged={jest.fn()} onClose={jest.fn()} />, { session: signedInAs(ADMIN) });
    expect(screen.getByRole('status')).toHaveTextContent(
      `These tickets belong to different customers. The messages of #${pair[0].ticketId} will show to staff only in #1002, and ${pair[0].customer.firstName} ${pair[0].customer.lastName} will be told the number but not let into Dan Other's ticket.`,
    );
    expect(screen.getByRole('button', { name: 'Confirm merge' })).toBeEnabled();
    unmount();
    renderWeb(<MergeConfirm tickets={pair} onMerged={jest.fn()} onClose={jest.fn()} />, { session: signedInAs(AGENT) });
    expect(screen.getByRole('alert')).toHaveTextContent('Only an admin can merge tickets of different customers');
    expect(screen.getByRole('button', { name: 'Confirm merge' })).toBeDisabled();
  });

  it('when the confirmation pairs two tickets of one customer, then nothing warns', () => {
    renderWeb(<MergeConfirm tickets={[ticket({}), ticket({ _id: 't2', ticketId: 1002 })]} onMerged={jest.fn()} onClose={jest.fn()} />, {
      session: signedInAs(AGENT),
    });
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm merge' })).toBeEnabled();
  });
});
