/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../test/render';
import { Modal } from './ui';

describe('Modal', () => {
  it('when Tab or Shift+Tab passes its last or first control, then focus goes round the dialog, never to the page behind', async () => {
    const onClose = jest.fn();
    renderWeb(
      <>
        <button type="button">Behind the dialog</button>
        <Modal title="Create New Ticket" onClose={onClose}>
          <input aria-label="Title" />
          <button type="button" disabled>
            Disabled
          </button>
          <button type="button">Cancel</button>
        </Modal>
      </>,
    );
    const user = userEvent.setup();
    expect(screen.getByLabelText('Title')).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
    await user.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab();
    await user.tab();
    expect(screen.getByLabelText('Title')).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Behind the dialog' })).not.toHaveFocus();
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
