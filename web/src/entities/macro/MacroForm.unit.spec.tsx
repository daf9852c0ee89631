/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Macro } from '#contract/responses';
import { renderWeb } from '../../test/render';
import { MacroForm } from './MacroForm';

const REFUND: Macro = {
  _id: 'm1',
  name: 'Refund issued',
  shortcode: 'refund',
  reply: 'Hi {{customer.firstName}}',
  actions: [
    { type: 'status', status: 'resolved' },
    { type: 'assign', agentId: 'agent-7' },
    { type: 'note', text: 'Refunded' },
    { type: 'note', text: 'Second note' },
  ],
  shared: false,
  version: 3,
  owner: { _id: 'a1', firstName: 'Ana', lastName: 'Lopez' },
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
} as Macro;

describe('Macro form', () => {
  it('when opened on a macro, then its fields are filled, and a save keeps the actions the form has no field for', async () => {
    const onSubmit = jest.fn();
    renderWeb(<MacroForm record={REFUND} isAdmin={false} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} />);
    expect(screen.getByLabelText('Name')).toHaveValue('Refund issued');
    expect(screen.getByLabelText('Set status')).toHaveValue('resolved');
    expect(screen.getByLabelText('Internal note')).toHaveValue('Refunded');
    expect(screen.getByText('Also kept: 2 more actions set through the API.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'Refund sent');
    await user.click(screen.getByRole('button', { name: 'Save macro' }));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'Refund sent',
      shortcode: 'refund',
      reply: 'Hi {{customer.firstName}}',
      actions: [
        { type: 'status', status: 'resolved' },
        { type: 'note', text: 'Refunded' },
        { type: 'assign', agentId: 'agent-7' },
        { type: 'note', text: 'Second note' },
      ],
      shared: false,
    });
  });

  it('when the name is missing, then the schema’s words show and nothing is sent', async () => {
    const onSubmit = jest.fn();
    renderWeb(<MacroForm record={null} isAdmin={false} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Save macro' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Name is required');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when a team is chosen and tags typed, then the macro carries a team action and one tags action', async () => {
    const onSubmit = jest.fn();
    renderWeb(
      <MacroForm
        record={null}
        isAdmin={false}
        saving={false}
        error={null}
        onSubmit={onSubmit}
        onCancel={jest.fn()}
        teams={[{ _id: 'team-1', name: 'Payments' }]}
      />,
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name'), 'Route to payments');
    await user.type(screen.getByLabelText('Shortcode'), 'pay');
    await user.selectOptions(screen.getByLabelText('Put with team'), 'Payments');
    await user.type(screen.getByLabelText('Add tags'), 'refund, VIP');
    await user.type(screen.getByLabelText('Remove tags'), 'new');
    await user.click(screen.getByRole('button', { name: 'Save macro' }));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({
        actions: [
          { type: 'team', teamId: 'team-1' },
          { type: 'tags', add: ['refund', 'vip'], remove: ['new'] },
        ],
      }),
    );
  });
});
