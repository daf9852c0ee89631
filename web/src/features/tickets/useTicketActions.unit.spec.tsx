/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT, ticket } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import type { Ticket } from '../../entities/ticket/types';
import { useTicketActions } from './useTicketActions';

const COLLEAGUE = { _id: 'bob', username: 'bob_agent', firstName: 'Bob', lastName: 'Agent' };

function AssignButton({ of }: { of: Ticket }) {
  const actions = useTicketActions();
  return (
    <>
      <button type="button" onClick={() => void actions.assignToMe(of)}>
        Assign to Me
      </button>
      {actions.takeOverDialog}
    </>
  );
}

describe('Assign to Me (issue 41)', () => {
  it("when the ticket is a colleague's, then it asks first and Cancel leaves the ticket as it was", async () => {
    const fetched = jest.spyOn(globalThis, 'fetch');
    renderWeb(<AssignButton of={ticket({ assignedAgent: COLLEAGUE })} />, { session: { status: 'authenticated', user: AGENT } });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Assign to Me' }));
    const dialog = screen.getByRole('dialog', { name: 'Please confirm' });
    expect(dialog).toHaveTextContent('Ticket #1001 is assigned to bob_agent. Assign it to you instead?');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(fetched).not.toHaveBeenCalled();
    fetched.mockRestore();
  });

  it('when the ticket is unassigned, then it asks nothing', async () => {
    renderWeb(<AssignButton of={ticket({ assignedAgent: null })} />, { session: { status: 'authenticated', user: AGENT } });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Assign to Me' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
