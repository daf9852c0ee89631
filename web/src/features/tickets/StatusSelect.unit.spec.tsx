/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TICKET_STATUSES } from '#contract/tickets';
import { ticket } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { StatusSelect } from './StatusSelect';

const OPEN_TICKET = ticket({ status: 'open' });

function renderSelect() {
  const onChange = jest.fn();
  renderWeb(<StatusSelect ticket={OPEN_TICKET} onChange={onChange} />);
  const select = screen.getByLabelText<HTMLSelectElement>('Status of ticket #1001');
  return { onChange, select, user: userEvent.setup() };
}

/**
 * An arrow key on a closed select, as Chromium does it: the key goes down, then the select takes the
 * next option and fires its change (jsdom has no such default action, so the change is sent here).
 */
async function arrowDown(user: ReturnType<typeof userEvent.setup>, select: HTMLSelectElement) {
  await user.keyboard('{ArrowDown}');
  const next = TICKET_STATUSES[TICKET_STATUSES.indexOf(select.value as (typeof TICKET_STATUSES)[number]) + 1]!;
  fireEvent.change(select, { target: { value: next } });
}

describe('Status select', () => {
  it('when staff press ArrowDown twice and then Enter, then one status change is sent, the one they stopped on', async () => {
    const { onChange, select, user } = renderSelect();
    select.focus();
    await arrowDown(user, select);
    await arrowDown(user, select);
    expect(onChange).not.toHaveBeenCalled();
    expect(select).toHaveValue('pending_customer');
    expect(select).toHaveAccessibleDescription('Enter saves, Escape cancels');
    await user.keyboard('{Enter}');
    expect(onChange.mock.calls).toEqual([['pending_customer']]);
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
  });

  it('when staff arrow to a status and press Escape, then nothing is sent and the ticket’s status shows again', async () => {
    const { onChange, select, user } = renderSelect();
    select.focus();
    await arrowDown(user, select);
    await user.keyboard('{Escape}');
    expect(onChange).not.toHaveBeenCalled();
    expect(select).toHaveValue('open');
  });

  it('when a status chosen with the keyboard waits, then Save sends it once and Cancel sends nothing', async () => {
    const { onChange, select, user } = renderSelect();
    select.focus();
    await arrowDown(user, select);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(select).toHaveValue('open');
    select.focus();
    await arrowDown(user, select);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onChange.mock.calls).toEqual([['in_progress']]);
  });

  it('when a status is picked with the pointer, then it is sent at once, once', async () => {
    const { onChange, select, user } = renderSelect();
    await user.selectOptions(select, 'resolved');
    expect(onChange.mock.calls).toEqual([['resolved']]);
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
  });
});
