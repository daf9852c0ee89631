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

  it('when an admin picks "a ticket has matched the conditions for" 30 minutes, then a time rule escalating unassigned tickets is sent', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Rule Name'), 'Escalate unassigned');
    await user.click(screen.getByRole('radio', { name: 'A ticket has matched the conditions for…' }));
    await user.clear(screen.getByLabelText('Wait'));
    await user.type(screen.getByLabelText('Wait'), '30');
    await user.selectOptions(screen.getByLabelText('Wait unit'), 'minutes');
    await user.click(screen.getByRole('button', { name: 'Add condition' }));
    await user.selectOptions(screen.getByLabelText('Condition 1 field'), 'Assignee');
    await user.selectOptions(screen.getByLabelText('Condition 1 value'), 'Nobody');
    await user.selectOptions(screen.getByLabelText('Action 1'), 'Set priority');
    await user.selectOptions(screen.getByLabelText('Action 1 value'), 'urgent');
    await user.click(screen.getByRole('button', { name: 'Create Rule' }));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'Escalate unassigned',
      enabled: true,
      trigger: { kind: 'time', after: { amount: 30, unit: 'minutes' } },
      conditions: [{ field: 'assignee', op: 'is', values: ['none'] }],
      actions: [{ type: 'priority', priority: 'urgent' }],
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
