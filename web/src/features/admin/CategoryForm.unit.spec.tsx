/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { CATEGORIES } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { CategoryCard } from './CategoriesTab';
import { CategoryForm } from './CategoryForm';

function renderForm(props: Partial<Parameters<typeof CategoryForm>[0]> = {}) {
  const onSubmit = jest.fn();
  renderWeb(<CategoryForm category={null} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} {...props} />);
  return { onSubmit, user: userEvent.setup() };
}

describe('Category form', () => {
  it('when a new category opens, then colour is #007bff, order 0 and it is active', () => {
    renderForm();
    expect(screen.getByLabelText('Colour')).toHaveValue('#007bff');
    expect(screen.getByLabelText('Order')).toHaveValue(0);
    expect(screen.getByRole('checkbox', { name: 'Active' })).toBeChecked();
  });

  it('when a team is chosen to route new tickets to, then its id is sent (docs/teams.md)', async () => {
    const team = {
      _id: 'team-1',
      name: 'Billing team',
      members: [],
      archived: false,
      assignment: { mode: 'manual' as const, cap: null },
      createdAt: '',
      updatedAt: '',
    };
    const { user, onSubmit } = renderForm({ teams: [team] });
    await user.type(screen.getByLabelText('Name'), 'Billing');
    await user.selectOptions(screen.getByLabelText('Route new tickets to team'), 'Billing team');
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ name: 'Billing', routeTeamId: 'team-1' }));
  });

  it('when the name is blank or the order negative, then each says so', async () => {
    const { user, onSubmit } = renderForm();
    await user.clear(screen.getByLabelText('Order'));
    await user.type(screen.getByLabelText('Order'), '-1');
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(screen.getByText('Order must be at least 0')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when a custom field lacks name and prompt, then both are required', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Name'), 'Billing');
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(screen.getByText('Field name is required')).toBeInTheDocument();
    expect(screen.getByText('Prompt is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when text limits are reversed or negative, then the rule is named', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Name'), 'Billing');
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    const field = screen.getByRole('group', { name: 'Custom field 1' });
    await user.type(within(field).getByLabelText('Field Name'), 'invoice');
    await user.type(within(field).getByLabelText('Prompt'), 'Invoice number');
    await user.type(within(field).getByLabelText('Min Length'), '-2');
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(screen.getByText('Minimum length cannot be negative')).toBeInTheDocument();
    await user.clear(within(field).getByLabelText('Min Length'));
    await user.type(within(field).getByLabelText('Min Length'), '10');
    await user.type(within(field).getByLabelText('Max Length'), '4');
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(screen.getByText('Minimum length cannot exceed maximum length')).toBeInTheDocument();
  });

  it('when a number field is chosen, then it offers value limits instead of lengths', async () => {
    const { user } = renderForm();
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    await user.selectOptions(screen.getByLabelText('Field Type'), 'number');
    expect(screen.queryByLabelText('Min Length')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Min Value')).toBeInTheDocument();
    expect(screen.getByLabelText('Max Value')).toBeInTheDocument();
  });

  it('when valid fields are added, then each gets the order of its place and only its type\u2019s limits', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Name'), 'Orders');
    await user.type(screen.getByLabelText('Description'), 'Order problems');
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    const [first, second] = screen.getAllByRole('group', { name: /Custom field/ });
    await user.type(within(first!).getByLabelText('Field Name'), 'orderNumber');
    await user.type(within(first!).getByLabelText('Prompt'), 'Order number');
    await user.type(within(first!).getByLabelText('Min Length'), '4');
    await user.type(within(second!).getByLabelText('Field Name'), 'quantity');
    await user.type(within(second!).getByLabelText('Prompt'), 'How many?');
    await user.selectOptions(within(second!).getByLabelText('Field Type'), 'number');
    await user.type(within(second!).getByLabelText('Max Value'), '99');
    await user.click(within(second!).getByRole('checkbox', { name: 'Required' }));
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'Orders',
      description: 'Order problems',
      color: '#007bff',
      order: 0,
      isActive: true,
      routeTeamId: null,
      customFields: [
        { fieldName: 'orderNumber', fieldType: 'text', prompt: 'Order number', placeholder: '', required: true, validation: { minLength: 4 }, order: 0 },
        { fieldName: 'quantity', fieldType: 'number', prompt: 'How many?', placeholder: '', required: false, validation: { max: 99 }, order: 1 },
      ],
    });
  });

  it('when two fields share a name, then that is refused', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Name'), 'Orders');
    for (const index of [0, 1]) {
      await user.click(screen.getByRole('button', { name: 'Add Field' }));
      const field = screen.getAllByRole('group', { name: /Custom field/ })[index]!;
      await user.type(within(field).getByLabelText('Field Name'), 'same');
      await user.type(within(field).getByLabelText('Prompt'), 'Same?');
    }
    await user.click(screen.getByRole('button', { name: 'Create Category' }));
    expect(screen.getByText('Custom field names must be unique')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when an existing category is edited, then its fields are filled in and a field can be removed', async () => {
    const billing = CATEGORIES[0]!;
    const { user, onSubmit } = renderForm({ category: billing });
    expect(screen.getByLabelText('Name')).toHaveValue(billing.name);
    expect(screen.getAllByRole('group', { name: /Custom field/ })).toHaveLength(billing.customFields.length);
    await user.click(screen.getAllByRole('button', { name: 'Remove Field' })[0]!);
    await user.click(screen.getByRole('button', { name: 'Update Category' }));
    expect(onSubmit.mock.calls[0][0].customFields).toHaveLength(billing.customFields.length - 1);
  });

  it('when the server refuses, then its message shows', () => {
    renderForm({ error: 'Failed to create or update category' });
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to create or update category');
  });
});

describe('Category card', () => {
  it('when shown, then name, state, order and custom fields are listed', () => {
    renderWeb(<CategoryCard category={{ ...CATEGORIES[0]!, isActive: false }} onEdit={jest.fn()} onDelete={jest.fn()} />);
    const card = screen.getByRole('article', { name: CATEGORIES[0]!.name });
    expect(card).toHaveTextContent('Inactive');
    expect(card).toHaveTextContent(`Order: ${CATEGORIES[0]!.order}`);
    expect(card).toHaveTextContent(CATEGORIES[0]!.customFields[0]!.prompt);
  });
});
