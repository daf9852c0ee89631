/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../../test/render';
import type { Delivery, DeliveryList } from './api';
import { DeliveriesView } from './DeliveriesTab';

const at = new Date(Date.now() - 5 * 60_000).toISOString();
const delivery = (fields: Partial<Delivery>): Delivery => ({
  id: 'telegram_e1',
  channel: 'telegram',
  direction: 'outbound',
  recipient: '5004',
  recipientName: null,
  ticket: { _id: 't1', ticketId: 1001, title: 'Locked out' },
  kind: 'newMessageNotification',
  state: 'failed',
  attempts: 1,
  lastError: 'Telegram answered 403: Forbidden: bot was blocked by the user',
  createdAt: at,
  updatedAt: at,
  ageSeconds: 300,
  ...fields,
});

function renderView(fields: Omit<DeliveryList, 'failedPagination'> & Partial<Pick<DeliveryList, 'failedPagination'>>, busy = false) {
  const onAction = jest.fn();
  const onPage = jest.fn();
  const list: DeliveryList = { failedPagination: { page: 1, limit: 50, total: fields.counts.failed, pages: Math.ceil(fields.counts.failed / 50) }, ...fields };
  renderWeb(<DeliveriesView list={list} busy={busy} onAction={onAction} onPage={onPage} />);
  return { onAction, onPage, user: userEvent.setup() };
}

describe('Deliveries view', () => {
  it('when nothing waits, then it says every notice was delivered and the bulk actions are off', () => {
    renderView({ deliveries: [], counts: { waiting: 0, retrying: 0, failed: 0, inbound: 0 } });
    expect(screen.getByText('Every notice has been delivered')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry all failed' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Discard all failed' })).toBeDisabled();
  });

  it('when notices wait, then each row shows channel, recipient, ticket, notice, status, attempts, last error and time', () => {
    const failed = delivery({ recipientName: 'Dana Lee @dana_l' });
    const retrying = delivery({
      id: 'email_e2',
      channel: 'email',
      recipient: 'carol@example.com',
      kind: 'status',
      state: 'retrying',
      attempts: 4,
      lastError: 'connect ECONNREFUSED 127.0.0.1:25',
    });
    const waiting = delivery({ id: 'telegram_e3', ticket: null, kind: 'ticketClosedMessage', state: 'waiting', attempts: 0, lastError: null });
    const incoming = delivery({
      id: 'update_626262_1001',
      direction: 'inbound',
      recipient: '8101',
      ticket: null,
      kind: 'update',
      state: 'retrying',
      attempts: 2,
      lastError: 'the bot is not known yet: getMe has never answered for it',
      ageSeconds: 150,
    });
    renderView({ deliveries: [failed, retrying, waiting, incoming], counts: { waiting: 1, retrying: 2, failed: 1, inbound: 1 } });
    expect(screen.getByText('1 pending · 2 retrying · 1 failed · 1 incoming')).toBeInTheDocument();
    expect(screen.getByText(/One notice could not be delivered/)).toBeInTheDocument();
    const rows = within(screen.getByRole('table', { name: 'Deliveries' }))
      .getAllByRole('row')
      .slice(1);
    expect(
      rows.map((row) =>
        within(row)
          .getAllByRole('cell')
          .slice(0, 10)
          .map((cell) => cell.textContent),
      ),
    ).toEqual([
      [
        'Telegram',
        'Out',
        'Dana Lee @dana_l5004',
        '#1001',
        'New reply',
        'Failed',
        '1',
        'Telegram answered 403: Forbidden: bot was blocked by the user',
        '5 min',
        '5 mins ago',
      ],
      ['E-mail', 'Out', 'carol@example.com', '#1001', 'Status changed', 'Retrying', '4', 'connect ECONNREFUSED 127.0.0.1:25', '5 min', '5 mins ago'],
      ['Telegram', 'Out', '5004', '—', 'Ticket closed', 'Pending', '0', '—', '5 min', '5 mins ago'],
      ['Telegram', 'In', '8101', '—', 'Customer message', 'Retrying', '2', 'the bot is not known yet: getMe has never answered for it', '2 min', '5 mins ago'],
    ]);
    expect(within(rows[0]!).getByRole('link', { name: '#1001' })).toHaveAttribute('href', '/tickets/t1');
    // A notice that never failed has nothing to retry.
    expect(within(rows[2]!).queryByRole('button', { name: /^Retry/ })).toBeNull();
    expect(within(rows[2]!).getByRole('button', { name: /^Discard/ })).toBeEnabled();
    // A customer's message waiting to come in is shown, never retried or discarded from here.
    expect(within(rows[3]!).queryAllByRole('button')).toEqual([]);
  });

  it('when an admin presses Retry, Discard or a bulk action, then that action is asked for with its row', async () => {
    const failed = delivery({ recipientName: 'Dana Lee @dana_l' });
    const { user, onAction } = renderView({ deliveries: [failed], counts: { waiting: 0, retrying: 0, failed: 1, inbound: 0 } });
    await user.click(screen.getByRole('button', { name: 'Retry New reply to Dana Lee @dana_l' }));
    await user.click(screen.getByRole('button', { name: 'Discard New reply to Dana Lee @dana_l' }));
    await user.click(screen.getByRole('button', { name: 'Retry all failed' }));
    await user.click(screen.getByRole('button', { name: 'Discard all failed' }));
    expect(onAction.mock.calls.map(([action]) => action)).toEqual([
      { kind: 'retry', delivery: failed },
      { kind: 'discard', delivery: failed },
      { kind: 'retry-all' },
      { kind: 'discard-all' },
    ]);
  });

  it('when an action is under way, then the buttons wait for it', () => {
    renderView({ deliveries: [delivery({})], counts: { waiting: 0, retrying: 0, failed: 1, inbound: 0 } }, true);
    expect(screen.getByRole('button', { name: 'Retry New reply to 5004' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Retry all failed' })).toBeDisabled();
  });

  it('when a notice is being sent, then it cannot be discarded', () => {
    renderView({ deliveries: [delivery({ state: 'active', attempts: 0, lastError: null })], counts: { waiting: 1, retrying: 0, failed: 0, inbound: 0 } });
    expect(screen.getByText('Sending')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Discard New reply/ })).toBeNull();
  });

  it('when the failed notices fill more than a page, then a pager goes to older and newer pages; one page shows none', async () => {
    const { user, onPage } = renderView({
      deliveries: [delivery({})],
      counts: { waiting: 0, retrying: 0, failed: 120, inbound: 0 },
      failedPagination: { page: 2, limit: 50, total: 120, pages: 3 },
    });
    const pager = screen.getByRole('navigation', { name: 'Failed notices pages' });
    expect(within(pager).getByText('Failed notices, page 2 of 3')).toBeInTheDocument();
    await user.click(within(pager).getByRole('button', { name: 'Older' }));
    await user.click(within(pager).getByRole('button', { name: 'Newer' }));
    expect(onPage.mock.calls).toEqual([[3], [1]]);
  });

  it('when the failed notices fit one page, then there is no pager', () => {
    renderView({ deliveries: [delivery({})], counts: { waiting: 0, retrying: 0, failed: 1, inbound: 0 } });
    expect(screen.queryByRole('navigation', { name: 'Failed notices pages' })).toBeNull();
  });
});
