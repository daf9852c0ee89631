import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  webhookId: string;
  id: string;
  type: string;
  subject: string;
  /** Whether the signature verifies with one of the receiver's `secrets`. */
  verified: boolean;
  data: Record<string, unknown>;
  /** The raw X-Desk-Signature header and body, to check against one secret (`verifies`). */
  signature: string;
  body: string;
  /** When the request's body had arrived (Date.now()). */
  receivedAt: number;
}

/**
 * The recipe of docs/integrations.md: t and every v1 from the header, HMAC-SHA256 of `${t}.${body}`
 * under the receiver's secret, accepted when one v1 matches, within five minutes of its clock.
 */
export function verifies(secret: string, header: string, body: string, nowMs = Date.now()): boolean {
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const t = parts.find(([key]) => key === 't')?.[1];
  if (Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, v1]) => {
      const given = Buffer.from(v1 ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** A real HTTP receiver on the loopback that checks each signature with the recipe; `now` is its clock (the server's, when that one is moved). */
export async function startReceiver(now: () => number = Date.now) {
  const received: Received[] = [];
  const secrets: string[] = [];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(204).end();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers['x-desk-signature']);
      const verified = secrets.some((secret) => verifies(secret, signature, body, now()));
      const item = JSON.parse(body) as Received;
      received.push({
        webhookId: String(req.headers['x-desk-webhook-id']),
        id: item.id,
        type: item.type,
        subject: item.subject,
        data: item.data,
        verified,
        signature,
        body,
        receivedAt: Date.now(),
      });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    secrets,
    url: `http://127.0.0.1:${port}/hook`,
    answerWith(handler: typeof answer) {
      answer = handler;
    },
    /** Stops listening (connections refused) until `up`. */
    async down() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async up() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}
