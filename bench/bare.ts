import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Server } from 'socket.io';

/**
 * The baseline server: a bare Express route shaped like `POST /api/tickets/:id/messages` (JSON in,
 * a message out) and a bare socket.io room push, with none of the desk's work (no token, no event
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

httpServer.listen(0, () => {
  process.stdout.write(`bare server running at http://localhost:${(httpServer.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
