/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { CATEGORIES } from '../../test/fixtures';
import type { Category } from '../../entities/ticket/types';
import { renderWeb } from '../../test/render';
import { TicketForm } from './CreateTicketDialog';

function renderForm(props: Partial<Parameters<typeof TicketForm>[0]> = {}) {
  const onSubmit = jest.fn();
  const onCancel = jest.fn();
  renderWeb(
    <TicketForm
      categories={CATEGORIES}
      categoriesError={false}
      existing={null}
      submitting={false}
      error={null}
      onSubmit={onSubmit}
      onCancel={onCancel}
      {...props}
    />,
  );
  return { onSubmit, onCancel, user: userEvent.setup() };
}

describe('Create-ticket form', () => {
  it('when categories load, then the first is chosen, priority is medium and its custom fields show', () => {
    renderForm();
    expect(screen.getByLabelText('Category')).toHaveValue('billing');
    expect(screen.getByLabelText('Priority')).toHaveValue('medium');
    expect(screen.getByLabelText(/Invoice number/)).toHaveAttribute('placeholder', 'INV-0000');
  });

  it('when title and description are typed, then their counters follow', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Title'), 'Broken');
    await user.type(screen.getByLabelText('Description'), 'It fails');
    expect(screen.getByText('6/200')).toBeInTheDocument();
    expect(screen.getByText('8/2000')).toBeInTheDocument();
  });

  it('when title or description is blank, then submit is disabled', async () => {
    const { user } = renderForm();
    const submit = screen.getByRole('button', { name: 'Create Ticket' });
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Title'), 'Broken');
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Description'), '   ');
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Description'), 'It fails');
    expect(submit).toBeEnabled();
  });

  it('when no category exists, then submit stays disabled', async () => {
    const { user } = renderForm({ categories: [] });
    await user.type(screen.getByLabelText('Title'), 'Broken');
    await user.type(screen.getByLabelText('Description'), 'It fails');
    expect(screen.getByRole('button', { name: 'Create Ticket' })).toBeDisabled();
  });

  it('when a category is chosen, then only its custom fields show, checked by their rules', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Title'), 'Broken');
    await user.type(screen.getByLabelText('Description'), 'It fails');
    await user.type(screen.getByLabelText(/Invoice number/), 'IN');
    await user.click(screen.getByRole('button', { name: 'Create Ticket' }));
    expect(screen.getByText('Invoice number must be at least 4 characters')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await user.selectOptions(screen.getByLabelText('Category'), 'technical');
    expect(screen.queryByLabelText(/Invoice number/)).not.toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Priority'), 'urgent');
    await user.click(screen.getByRole('button', { name: 'Create Ticket' }));
    expect(onSubmit).toHaveBeenCalledWith({ title: 'Broken', description: 'It fails', category: 'technical', priority: 'urgent', customFieldValues: {} });
  });

  it('when title or description holds only zero-width or direction marks, then submit stays disabled, as the server would refuse them', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Title'), '\u200B\u200E');
    await user.type(screen.getByLabelText('Description'), 'It fails');
    expect(screen.getByRole('button', { name: 'Create Ticket' })).toBeDisabled();
  });

  it('when custom fields are named constructor, toString and valueOf, then they start empty and a required one is asked for', async () => {
    const MEMBERS: Category = {
      ...CATEGORIES[1]!,
      customFields: [
        { fieldName: 'constructor', fieldType: 'text', prompt: 'Builder', placeholder: '', required: true, validation: {}, order: 0 },
        { fieldName: 'toString', fieldType: 'text', prompt: 'Reference', placeholder: '', required: false, validation: {}, order: 1 },
        { fieldName: 'valueOf', fieldType: 'number', prompt: 'Amount', placeholder: '', required: false, validation: {}, order: 2 },
      ],
    };
    const { user, onSubmit } = renderForm({ categories: [MEMBERS] });
    expect(screen.getByLabelText(/Builder/)).toHaveValue('');
    expect(screen.getByLabelText(/Reference/)).toHaveValue('');
    expect(screen.getByLabelText(/Amount/)).toHaveValue(null);
    await user.type(screen.getByLabelText('Title'), 'Broken');
    await user.type(screen.getByLabelText('Description'), 'It fails');
    await user.click(screen.getByRole('button', { name: 'Create Ticket' }));
    expect(screen.getByText('Builder is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText(/Builder/), 'Lego');
    await user.click(screen.getByRole('button', { name: 'Create Ticket' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ customFieldValues: { constructor: 'Lego' } }));
  });

  it('when an open ticket exists, then the notice links to it instead of a form that cannot be sent', async () => {
    const { user, onCancel } = renderForm({ existing: { _id: 'ticket-9', ticketId: 1009, title: 'Still broken', status: 'in_progress' } });
    expect(screen.getByText('You already have an open ticket')).toBeInTheDocument();
    expect(screen.getByText('#1009 Still broken (in progress)')).toBeInTheDocument();
    expect(screen.getByText('Please resolve your existing ticket before creating a new one')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to your open ticket' })).toHaveAttribute('href', '/tickets/ticket-9');
    expect(screen.queryByLabelText('Title')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create Ticket' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalled();
  });

  it('when the desk has no category yet, then the form says why it cannot be sent and whom to ask (issue 50)', () => {
    const { unmount } = renderWeb(
      <TicketForm
        categories={[]}
        categoriesError={false}
        supportEmail="help@desk.test"
        existing={null}
        submitting={false}
        error={null}
        onSubmit={jest.fn()}
        onCancel={jest.fn()}
      />,
    );
    expect(screen.getByRole('status')).toHaveTextContent(
      "Tickets can't be opened yet: this desk has no categories set up. Please write to help@desk.test and they will add one.",
    );
    expect(screen.getByRole('button', { name: 'Create Ticket' })).toBeDisabled();
    unmount();
    renderForm({ categories: [] });
    expect(screen.getByRole('status')).toHaveTextContent('Please contact the support team and they will add one.');
  });

  it('when categories fail to load, then the form says so', () => {
    renderForm({ categories: undefined, categoriesError: true });
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to load categories');
  });
});
