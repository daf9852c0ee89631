/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../../test/render';
import { RuleForm, type RuleChoices } from './RuleForm';

const CHOICES: RuleChoices = {
  teams: [{ id: 'team-1', name: 'Payments' }],
  categories: [{ id: 'cat-1', name: 'Billing' }],
  staff: [{ id: 'agent-1', name: 'Ana Lopez' }],
  customers: [],
};

function renderForm() {
  const onSubmit = jest.fn();
  renderWeb(<RuleForm rule={null} choices={CHOICES} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} />);
  return { onSubmit, user: userEvent.setup() };
}

describe('Rule form (docs/automation.md)', () => {
  it('when an admin picks the events, conditions and actions, then the rule is sent as the API takes it', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Rule Name'), 'Route urgent billing');
    await user.click(screen.getByRole('button', { name: 'Add condition' }));
    await user.selectOptions(screen.getByLabelText('Condition 1 value'), 'urgent');
    await user.click(screen.getByRole('button', { name: 'Add condition' }));
    await user.selectOptions(screen.getByLabelText('Condition 2 field'), 'Category');
    await user.selectOptions(screen.getByLabelText('Condition 2 test'), 'is not');
    await user.selectOptions(screen.getByLabelText('Condition 2 value'), 'Billing');
    await user.selectOptions(screen.getByLabelText('Action 1 value'), 'Payments');
    await user.click(screen.getByRole('button', { name: 'Add action' }));
    await user.selectOptions(screen.getByLabelText('Action 2'), 'Notify an agent');
    await user.selectOptions(screen.getByLabelText('Action 2 value'), 'Ana Lopez');
    await user.type(screen.getByLabelText('Action 2 text'), 'Look at it');
    await user.click(screen.getByRole('button', { name: 'Create Rule' }));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'Route urgent billing',
      enabled: true,
      trigger: { kind: 'event', events: ['ticket_created'] },
      conditions: [
        { field: 'priority', op: 'is', values: ['urgent'] },
        { field: 'category', op: 'is_not', values: ['cat-1'] },
      ],
      actions: [
        { type: 'team', teamId: 'team-1' },
        { type: 'notify_agent', agentId: 'agent-1', text: 'Look at it' },
      ],
    });
  });

  it('when no event or action value is chosen, then it is not sent and the form says why', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Rule Name'), 'Nothing yet');
    await user.click(screen.getByRole('checkbox', { name: 'a ticket is created' }));
    await user.click(screen.getByRole('button', { name: 'Create Rule' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByText(/A trigger needs at least one event/)).toBeInTheDocument();
    expect(screen.getByText(/Team is required/)).toBeInTheDocument();
  });
});
