/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import { BulkResult } from './BulkBar';
import { renderWeb } from '../../test/render';

const BULK = {
  _id: 'b1',
  action: { type: 'status', status: 'closed' },
  total: 3,
  applied: 1,
  unchanged: 0,
  failed: 2,
  tickets: [
    { _id: 't1', ticketId: 1001, outcome: 'applied' as const },
    { _id: 't2', ticketId: 1002, outcome: 'failed' as const, status: 409, code: 'TICKET_MERGED', error: 'This ticket is merged into #1001; continue there' },
    { _id: 't3', ticketId: null, outcome: 'failed' as const, status: 404, code: 'NOT_FOUND', error: 'Ticket not found' },
  ],
};

describe('BulkResult', () => {
  it('when some tickets failed, then the summary counts them and names each with its reason', () => {
    renderWeb(<BulkResult bulk={BULK} onClose={jest.fn()} />);
    expect(screen.getByRole('status')).toHaveTextContent('3 tickets: 1 changed, 2 failed');
    expect(screen.getByText('#1002: This ticket is merged into #1001; continue there')).toBeInTheDocument();
    expect(screen.getByText('A ticket that does not exist: Ticket not found')).toBeInTheDocument();
  });
});
