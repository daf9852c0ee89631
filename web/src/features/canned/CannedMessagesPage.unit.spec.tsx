/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { CATEGORIES, CUSTOMER, canned } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { CannedForm } from './CannedForm';
import { CannedBrowser, CannedMessagesPage } from './CannedMessagesPage';

const GREETING = canned({
  shortcode: 'greeting',
  title: 'Warm hello',
  content: 'Hello! Thanks for reaching out.',
  usageCount: 12,
  category: { _id: 'billing', name: 'Billing' },
  lastUsed: '2026-11-20T10:00:00.000Z',
});
const REFUND = canned({ shortcode: 'refund', title: 'Refund started', content: 'Your REFUND is on its way.', usageCount: 1 });
const CLOSING = canned({ shortcode: 'bye', title: 'Closing', content: 'Anything else?', category: { _id: 'technical', name: 'Technical' } });

function renderForm(props: Partial<Parameters<typeof CannedForm>[0]> = {}) {
  const onSubmit = jest.fn();
  renderWeb(<CannedForm canned={null} categories={CATEGORIES} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} {...props} />);
  return { onSubmit, user: userEvent.setup() };
}

describe('Canned message form', () => {
  it('when submitted empty, then shortcode, title and content are required in the wording of docs/product.md section 5', async () => {
    const { user, onSubmit } = renderForm();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText('Shortcode is required')).toBeInTheDocument();
    expect(screen.getByText('Title is required')).toBeInTheDocument();
    expect(screen.getByText('Content is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when a shortcode is typed, then it is lower-cased, and bad characters and lengths are named', async () => {
    const { user } = renderForm();
    const shortcode = screen.getByLabelText('Shortcode');
    await user.type(shortcode, 'Hello World');
    expect(shortcode).toHaveValue('hello world');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText('Shortcode can only contain lowercase letters, numbers, underscores, and hyphens')).toBeInTheDocument();
    await user.clear(shortcode);
    await user.type(shortcode, 'a');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText('Shortcode must be between 2 and 50 characters')).toBeInTheDocument();
  });

  it('when the title reaches 100 characters or the content passes 2000, then both are refused', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Shortcode'), 'long');
    await user.click(screen.getByLabelText('Title'));
    await user.paste('t'.repeat(100));
    await user.click(screen.getByLabelText('Message Content'));
    await user.paste('c'.repeat(2001));
    expect(screen.getByText('2001/2000 characters')).toHaveClass('over');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText('Title must be less than 100 characters')).toBeInTheDocument();
    expect(screen.getByText('Content must be less than 2000 characters')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when created with No Category, then no category is sent', async () => {
    const { user, onSubmit } = renderForm();
    expect(screen.getByLabelText('Category')).toHaveValue('none');
    expect(screen.getByText('Used as #shortcode in chat')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Shortcode'), 'thanks');
    await user.type(screen.getByLabelText('Title'), 'Thank you');
    await user.type(screen.getByLabelText('Message Content'), 'Thanks for waiting!');
    expect(screen.getByText('19/2000 characters')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(onSubmit).toHaveBeenCalledWith({ shortcode: 'thanks', title: 'Thank you', content: 'Thanks for waiting!' });
  });

  it('when an edit moves a message to No Category, then the category is cleared', async () => {
    const { user, onSubmit } = renderForm({ canned: GREETING });
    expect(screen.getByLabelText('Category')).toHaveValue('billing');
    await user.selectOptions(screen.getByLabelText('Category'), 'none');
    await user.click(screen.getByRole('button', { name: 'Update' }));
    expect(onSubmit).toHaveBeenCalledWith({ shortcode: 'greeting', title: 'Warm hello', content: 'Hello! Thanks for reaching out.', category: null });
  });

  it('when editing a message without a category, then the category shows none', () => {
    renderForm({ canned: REFUND });
    expect(screen.getByLabelText('Category')).toHaveValue('none');
  });

  it('when saving, then the button reads Saving... and a refusal shows', () => {
    renderForm({ saving: true, error: 'This shortcode is already in use' });
    expect(screen.getByRole('button', { name: 'Saving...' })).toBeDisabled();
    expect(screen.getByRole('alert')).toHaveTextContent('This shortcode is already in use');
  });
});

describe('Canned message list', () => {
  function renderList(canDelete: boolean, messages = [GREETING, REFUND, CLOSING]) {
    renderWeb(<CannedBrowser messages={messages} categories={CATEGORIES} canDelete={canDelete} onEdit={jest.fn()} onDelete={jest.fn()} />);
    return userEvent.setup();
  }

  it('when shown, then each card lists shortcode, title, category, uses, author and dates', () => {
    renderList(true);
    const card = screen.getByRole('article', { name: '#greeting' });
    expect(card).toHaveTextContent('Warm hello');
    expect(card).toHaveTextContent('Billing');
    expect(card).toHaveTextContent('12 uses');
    expect(card).toHaveTextContent('By Alice Agent');
    expect(card).toHaveTextContent(`Created ${new Date(GREETING.createdAt).toLocaleDateString()}`);
    expect(card).toHaveTextContent(`Last used ${new Date(GREETING.lastUsed!).toLocaleDateString()}`);
    expect(screen.getByRole('article', { name: '#refund' })).toHaveTextContent('1 use');
    expect(screen.getByRole('article', { name: '#refund' })).not.toHaveTextContent('Last used');
  });

  it('when searching, then shortcode, title and content match regardless of case', async () => {
    const user = renderList(true);
    await user.type(screen.getByPlaceholderText('Search messages...'), 'refund');
    expect(screen.getAllByRole('article').map((card) => card.getAttribute('aria-label'))).toEqual(['#refund']);
    await user.clear(screen.getByPlaceholderText('Search messages...'));
    await user.type(screen.getByPlaceholderText('Search messages...'), 'ANYTHING');
    expect(screen.getAllByRole('article').map((card) => card.getAttribute('aria-label'))).toEqual(['#bye']);
  });

  it('when a category is chosen, then only its messages show; with no match the filter empty state shows', async () => {
    const user = renderList(true);
    expect(
      within(screen.getByLabelText('Filter by category'))
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['All Categories', 'Billing', 'Technical']);
    await user.selectOptions(screen.getByLabelText('Filter by category'), 'technical');
    expect(screen.getAllByRole('article').map((card) => card.getAttribute('aria-label'))).toEqual(['#bye']);
    await user.type(screen.getByPlaceholderText('Search messages...'), 'zzz');
    expect(screen.getByText('No messages found')).toBeInTheDocument();
    expect(screen.getByText('No messages match your filters')).toBeInTheDocument();
  });

  it('when there are none at all, then the first-one empty state shows', () => {
    renderList(true, []);
    expect(screen.getByText('No canned messages found. Create your first one!')).toBeInTheDocument();
  });

  it('when an agent looks, then there is no delete button', () => {
    renderList(false);
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit #greeting' })).toBeInTheDocument();
  });

  it('when a customer opens the screen, then Access Denied says why', () => {
    renderWeb(<CannedMessagesPage />, { session: signedInAs(CUSTOMER) });
    expect(screen.getByRole('alert')).toHaveTextContent('Access Denied: You must be an administrator or agent to access canned message settings.');
  });
});
