/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ticket } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { TicketTags } from './TicketTags';

describe('Ticket tags (docs/teams.md)', () => {
  it('when a tag is typed and added, then it is sent lowercase and trimmed, and the field empties', async () => {
    const onTag = jest.fn();
    const user = userEvent.setup();
    renderWeb(<TicketTags ticket={ticket({ tags: ['vip'] })} onTag={onTag} />);
    await user.type(screen.getByLabelText('Add tag'), ' Refund ');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(onTag).toHaveBeenCalledWith('refund', true);
    expect(screen.getByLabelText('Add tag')).toHaveValue('');
  });

  it('when a tag breaks the rule, then the rule is shown and nothing is sent', async () => {
    const onTag = jest.fn();
    const user = userEvent.setup();
    renderWeb(<TicketTags ticket={ticket({})} onTag={onTag} />);
    await user.type(screen.getByLabelText('Add tag'), 'two words');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(screen.getByText('A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit')).toBeInTheDocument();
    expect(onTag).not.toHaveBeenCalled();
  });

  it('when a tag’s remove button is pressed, then that tag is taken off', async () => {
    const onTag = jest.fn();
    const user = userEvent.setup();
    renderWeb(<TicketTags ticket={ticket({ tags: ['vip', 'refund'] })} onTag={onTag} />);
    await user.click(screen.getByRole('button', { name: 'Remove tag refund' }));
    expect(onTag).toHaveBeenCalledWith('refund', false);
  });
});
