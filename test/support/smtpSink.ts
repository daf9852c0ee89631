import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

interface Received {
  to: string[];
  raw: string;
}

/** An in-process SMTP sink (the one stand-in allowed for mail): it keeps what it accepts. */
export async function startSmtpSink() {
  const received: Received[] = [];
  const refusals: Array<{ code: number; message: string }> = [];
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = refusals.shift();
        if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
        received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const { port } = sink.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext: (code: number, message: string) => refusals.push({ code, message }),
    mailsTo: (address: string) => received.filter((mail) => mail.to.includes(address)),
    /** An outage: the sink stops listening (connections refused) until goUp(). */
    goDown: () => new Promise<void>((resolve) => sink.server.close(() => resolve())),
    goUp: () => new Promise<void>((resolve) => sink.server.listen(port, '127.0.0.1', () => resolve())),
    close: () => new Promise<void>((resolve) => (sink.server.listening ? sink.close(() => resolve()) : resolve())),
  };
}

export const subjectOf = (raw: string) => /^Subject: (.*)$/m.exec(raw.replace(/\r\n/g, '\n'))?.[1];
/** The text part with quoted-printable undone (soft breaks, escaped UTF-8 bytes). */
export const bodyOf = (raw: string) => {
  const text = raw.replace(/\r\n/g, '\n');
  const encoded = text.slice(text.indexOf('\n\n') + 2).replace(/=\n/g, '');
  return Buffer.from(
    encoded.replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
};
