/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT, ticket } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { OutcomeEditor, TicketHeader, TicketInformation, TicketNotFound } from './TicketPage';

const ALICE = { _id: AGENT._id, username: 'alice_agent', firstName: 'Alice', lastName: 'Agent' };

describe('Ticket detail', () => {
  it('when the ticket cannot be shown, then the not-found view explains and leads back', () => {
    renderWeb(<TicketNotFound />);
    expect(screen.getByRole('heading', { name: 'Ticket Not Found' })).toBeInTheDocument();
    expect(screen.getByText(/permission to view it/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard');
  });

  it('when staff see the header, then it has the status dropdown, the assignee and an unassign for the assigned agent', async () => {
    const onUnassign = jest.fn();
    renderWeb(
      <TicketHeader
        ticket={ticket({ assignedAgent: ALICE, status: 'in_progress' })}
        staff
        myId={AGENT._id}
        isAdmin={false}
        onStatus={jest.fn()}
        onAssign={jest.fn()}
        onUnassign={onUnassign}
      />,
    );
    expect(screen.getByText('#1001')).toBeInTheDocument();
    expect(screen.getByLabelText('Status of ticket #1001')).toHaveValue('in_progress');
    expect(screen.getByText('alice_agent')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Unassign' }));
    expect(onUnassign).toHaveBeenCalled();
  });

  it('when another agent looks, then only an admin may unassign', () => {
    const { unmount } = renderWeb(
      <TicketHeader
        ticket={ticket({ assignedAgent: ALICE })}
        staff
        myId="bob"
        isAdmin={false}
        onStatus={jest.fn()}
        onAssign={jest.fn()}
        onUnassign={jest.fn()}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Unassign' })).not.toBeInTheDocument();
    unmount();
    renderWeb(
      <TicketHeader ticket={ticket({ assignedAgent: ALICE })} staff myId="adam" isAdmin onStatus={jest.fn()} onAssign={jest.fn()} onUnassign={jest.fn()} />,
    );
    expect(screen.getByRole('button', { name: 'Unassign' })).toBeInTheDocument();
  });

  it('when a customer sees the header, then there is no status dropdown', () => {
    renderWeb(<TicketHeader ticket={ticket({})} staff={false} myId="cara" isAdmin={false} onStatus={jest.fn()} onAssign={jest.fn()} onUnassign={jest.fn()} />);
    expect(screen.queryByLabelText('Status of ticket #1001')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Assign to Me' })).not.toBeInTheDocument();
  });

  it('when custom fields were answered, then their prompts and answers show, files as links', () => {
    renderWeb(
      <TicketInformation
        ticket={ticket({
          customFieldValues: [
            { fieldName: 'invoice', fieldPrompt: 'Invoice number', value: 'INV-2042' },
            {
              fieldName: 'receipt',
              fieldPrompt: 'Receipt',
              value: { url: '/api/uploads/abc.pdf', mimeType: 'application/pdf', originalName: 'receipt.pdf', size: 3072 },
            },
          ],
        })}
      />,
    );
    expect(screen.getByText('Invoice number')).toBeInTheDocument();
    expect(screen.getByText('INV-2042')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /receipt\.pdf/ })).toBeInTheDocument();
    expect(screen.getByText('(3.0 KB)')).toBeInTheDocument();
  });

  it('when the outcome is edited, then blank cannot be saved, 1000 characters is the limit and the text is trimmed', async () => {
    const onSave = jest.fn(async () => null);
    renderWeb(<OutcomeEditor ticket={ticket({})} onSave={onSave} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Add Outcome' }));
    const box = screen.getByRole('textbox', { name: 'Outcome' });
    await user.type(box, '   ');
    expect(screen.getByRole('button', { name: 'Save Outcome' })).toBeDisabled();
    await user.clear(box);
    await user.click(box);
    await user.paste('x'.repeat(1001));
    expect(screen.getByText('1001/1000')).toHaveClass('over');
    await user.click(screen.getByRole('button', { name: 'Save Outcome' }));
    expect(screen.getByText('Outcome must be at most 1000 characters')).toBeInTheDocument();
    await user.clear(box);
    await user.type(box, '  Refunded the double charge  ');
    await user.click(screen.getByRole('button', { name: 'Save Outcome' }));
    expect(onSave).toHaveBeenCalledWith('Refunded the double charge');
  });
});
