import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Server } from 'socket.io';

/**
 * The baseline server: a bare Express route shaped like `POST /api/tickets/:id/messages` (JSON in,
 * a message out), one answering a fixed page of 50 tickets like `GET /api/tickets`, and a bare
 * socket.io room push, with none of the desk's work (no token, no event
 * log, no read models). The distance to it is what the desk itself costs.
 */
const app = express();
const httpServer = createServer(app);
const io = new Server(httpServer, { path: '/socket.io', serveClient: false });
let sequence = 0;

io.on('connection', (socket) => {
  socket.on('join_ticket', (ticketId: string, ack?: (answer: { ok: boolean }) => void) => {
    void socket.join(`ticket:${ticketId}`);
    ack?.({ ok: true });
  });
});

app.post('/api/tickets/:id/messages', express.json(), (req, res) => {
  const content = typeof req.body?.content === 'string' ? req.body.content : '';
  const message = { _id: String(++sequence), ticket: req.params.id, content, messageType: 'text', isInternal: false, createdAt: new Date().toISOString() };
  io.to(`ticket:${req.params.id}`).emit('new_message', { message });
  res.status(201).json({ message });
});

/**
 * Shaped like a page of `GET /api/tickets`: 50 tickets as the desk answers them (every field of the
 * contract's list item, values of the seeded desk's lengths: 55 KB, the list's page 56 KB), built once.
 */
const page = {
  tickets: Array.from({ length: 50 }, (_, i) => ({
    _id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    ticketId: 100_000 - i,
    title: `Cannot sign in to the portal ${i}`,
    description:
      'The page keeps reloading after I enter my password, on every browser I tried. The reference is ORD-239517; please update the order to the new address in Kraków, Zoltan will sign for it. Is there any way to do it without losing the sync?',
    category: { _id: '00000004-0000-4000-8000-000000000004', name: 'Account', color: '#3b82f6' },
    priority: 'high',
    status: 'open',
    customer: { _id: `00000003-0000-4000-8000-${String(i).padStart(12, '0')}`, username: `customer${i}`, firstName: 'Carla', lastName: 'Customer' },
    assignedAgent: null,
    outcomeMessage: null,
    outcomeUpdatedAt: null,
    outcomeUpdatedBy: null,
    customFieldValues: [],
    platform: 'web',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    updatedAt: new Date(Date.UTC(2026, 0, 1, 1, i)).toISOString(),
    resolvedAt: null,
    closedAt: null,
    messageCount: 54,
    lastMessageAt: new Date(Date.UTC(2026, 0, 1, 2, i)).toISOString(),
    lastCustomerMessageAt: new Date(Date.UTC(2026, 0, 1, 2, i)).toISOString(),
    waitingSince: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    mergedFrom: [],
    related: [],
    team: null,
    tags: [],
    mergedInto: null,
    unreadCount: 53,
  })),
  pagination: { page: 1, limit: 50, total: 20_000, pages: 400 },
};
app.get('/api/tickets', (_req, res) => {
  res.json(page);
});

httpServer.listen(0, () => {
  process.stdout.write(`bare server running at http://localhost:${(httpServer.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
