import { AGENT, TICKET, ticket } from '../../test/fixtures';
import { belongsTo, statusLabel, statusVariant, withTicket, withoutTicket } from './display';

describe('Ticket display rules', () => {
  it('when a status is shown, then underscores become spaces and badges follow docs/product.md section 2', () => {
    expect(statusLabel('pending_customer')).toBe('pending customer');
    expect([
      statusVariant('open'),
      statusVariant('in_progress'),
      statusVariant('resolved'),
      statusVariant('closed'),
      statusVariant('pending_customer'),
    ]).toEqual(['destructive', 'default', 'outline', 'secondary', 'secondary']);
  });

  it('when a list filters by status or assignment, then a ticket belongs as the server would decide', () => {
    const mine = ticket({ status: 'in_progress', assignedAgent: { _id: AGENT._id, username: AGENT.username, firstName: 'Alice', lastName: 'Agent' } });
    expect(belongsTo(mine, { status: 'open,in_progress', limit: 5 }, AGENT._id)).toBe(true);
    expect(belongsTo(mine, { status: 'open', limit: 5 }, AGENT._id)).toBe(false);
    expect(belongsTo(mine, { assigned: 'me', limit: 5 }, AGENT._id)).toBe(true);
    expect(belongsTo(mine, { assigned: 'unassigned', limit: 5 }, AGENT._id)).toBe(false);
    expect(belongsTo(TICKET, { assigned: 'unassigned', limit: 5 }, AGENT._id)).toBe(true);
  });

  describe('a live change to a list', () => {
    const older = ticket({ _id: 'a', ticketId: 1, createdAt: '2026-11-01T00:00:00.000Z', priority: 'urgent' });
    const newer = ticket({ _id: 'b', ticketId: 2, createdAt: '2026-11-02T00:00:00.000Z', priority: 'low' });

    it('when a new ticket arrives, then it is put first and the total grows, within the list size', () => {
      const next = withTicket({ tickets: [older], total: 1 }, newer, { limit: 1, sort: 'latest' }, undefined);
      expect(next).toEqual({ tickets: [newer], total: 2 });
    });

    it('when sorted by priority, then the more urgent ticket stays first', () => {
      const next = withTicket({ tickets: [older], total: 1 }, newer, { limit: 5, sort: 'priority' }, undefined);
      expect(next.tickets.map((t) => t._id)).toEqual(['a', 'b']);
    });

    it('when a ticket changes but still belongs, then its copy is replaced and the total stays', () => {
      const next = withTicket({ tickets: [newer, older], total: 2 }, { ...older, title: 'Renamed' }, { limit: 5 }, undefined);
      expect(next.total).toBe(2);
      expect(next.tickets.find((t) => t._id === 'a')?.title).toBe('Renamed');
    });

    it('when a ticket leaves the filter, then it is removed and the total shrinks', () => {
      const next = withTicket({ tickets: [newer, older], total: 2 }, { ...older, status: 'closed' }, { status: 'open', limit: 5 }, undefined);
      expect(next).toEqual({ tickets: [newer], total: 1 });
    });

    it('when a ticket is deleted, then it leaves the list', () => {
      expect(withoutTicket({ tickets: [newer, older], total: 2 }, 'a')).toEqual({ tickets: [newer], total: 1 });
      expect(withoutTicket({ tickets: [newer], total: 1 }, 'zzz')).toEqual({ tickets: [newer], total: 1 });
    });
  });
});
