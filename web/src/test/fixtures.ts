import type { User } from '../entities/session/sessionSlice';
import type { CannedMessage, Category, Message, Ticket, TicketListItem, TicketStats } from '../entities/ticket/types';

const user = (role: User['role'], firstName: string, lastName: string): User => ({
  _id: `${role}-${firstName.toLowerCase()}`,
  username: `${firstName.toLowerCase()}_${role}`,
  email: `${firstName.toLowerCase()}@example.com`,
  firstName,
  lastName,
  role,
  isActive: true,
  lastLogin: null,
  telegramUsername: null,
  createdByEmail: false,
  createdAt: '2026-11-01T09:00:00.000Z',
});

export const CUSTOMER = user('customer', 'Cara', 'Customer');
export const AGENT = user('agent', 'Alice', 'Agent');
export const ADMIN = user('admin', 'Adam', 'Admin');

export const TICKET: Ticket = {
  _id: 'ticket-1',
  ticketId: 1001,
  title: 'Invoice shows the wrong amount',
  description: 'My March invoice charges me twice.',
  category: { _id: 'billing', name: 'Billing', color: '#d63031' },
  priority: 'high',
  status: 'open',
  customer: { _id: CUSTOMER._id, username: CUSTOMER.username, firstName: 'Cara', lastName: 'Customer' },
  assignedAgent: null,
  outcomeMessage: null,
  outcomeUpdatedAt: null,
  outcomeUpdatedBy: null,
  customFieldValues: [],
  platform: 'web',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  resolvedAt: null,
  closedAt: null,
  messageCount: 0,
  lastMessageAt: null,
  lastCustomerMessageAt: '2026-11-20T10:00:00.000Z',
  waitingSince: '2026-11-20T10:00:00.000Z',
  mergedInto: null,
  mergedFrom: [],
  related: [],
  team: null,
  tags: [],
};

export const ticket = (overrides: Partial<Ticket>): Ticket => ({ ...TICKET, ...overrides });
export const listItem = (overrides: Partial<TicketListItem>): TicketListItem => ({ ...TICKET, unreadCount: 0, ...overrides });

export const message = (overrides: Partial<Message>): Message => ({
  _id: 'message-1',
  ticket: TICKET._id,
  content: 'Hello there',
  messageType: 'text',
  isInternal: false,
  platform: 'web',
  sender: { _id: CUSTOMER._id, firstName: 'Cara', lastName: 'Customer', role: 'customer' },
  createdAt: '2026-11-20T10:05:00.000Z',
  editedAt: null,
  attachments: [],
  ...overrides,
});

export const CATEGORIES: Category[] = [
  {
    _id: 'billing',
    name: 'Billing',
    description: '',
    color: '#d63031',
    order: 0,
    isActive: true,
    customFields: [
      { fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number', placeholder: 'INV-0000', required: true, validation: { minLength: 4 }, order: 0 },
    ],
  },
  { _id: 'technical', name: 'Technical', description: '', color: '#2456d6', order: 1, isActive: true, customFields: [] },
];

export const canned = (overrides: Partial<CannedMessage>): CannedMessage => ({
  _id: `canned-${overrides.shortcode ?? 'x'}`,
  shortcode: 'x',
  title: 'Title',
  content: 'Content',
  category: null,
  usageCount: 0,
  createdBy: { _id: AGENT._id, firstName: 'Alice', lastName: 'Agent' },
  createdAt: '2026-11-01T09:00:00.000Z',
  lastUsed: null,
  ...overrides,
});

export const STATS: TicketStats = {
  total: 12,
  open: 4,
  inProgress: 3,
  pendingCustomer: 1,
  resolved: 2,
  closed: 2,
  unassigned: 2,
  todayTickets: 1,
  weekTickets: 6,
  avgResponseTime: 42,
  avgResolutionTime: 1500,
  categoryStats: Array.from({ length: 7 }, (_, index) => ({
    _id: `c${index}`,
    name: `Category ${index}`,
    color: '#007bff',
    count: index,
    open: 0,
    avgResolutionTime: 90,
  })),
  teamStats: [
    { _id: 'team-1', name: 'Payments', count: 5, open: 2, avgFirstResponseTime: 30, avgResolutionTime: 600 },
    { _id: null, name: 'No team', count: 7, open: 2, avgFirstResponseTime: 0, avgResolutionTime: 0 },
  ],
  topTags: [
    { tag: 'refund', uses: 4 },
    { tag: 'vip', uses: 1 },
  ],
  recentActivity: Array.from({ length: 7 }, (_, index) => ({
    type: 'new' as const,
    message: `New ticket #${1001 + index}: Problem ${index}`,
    time: '2026-11-20T10:00:00.000Z',
    ticket: { _id: `t${index}`, ticketId: 1001 + index, title: `Problem ${index}`, status: 'open' as const },
  })),
};
