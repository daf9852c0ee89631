import { Presets, SingleBar } from 'cli-progress';
import { createEventStore } from '../platform/adapters';
import { loadConfig } from '../platform/config';
import { type VerifyReport, verifyLog } from '../platform/eventstore/integrity';
import type { EventStore } from '../platform/eventstore/port';
import { ticketHistory } from '../projections/history';
import { type TicketHistory } from '#contract/responses';

/**
 * The auditor's command line, reading the event log directly (the app may keep running):
 *   npm run audit -- ticket <id or number> [--json]   the ticket's timeline
 *   npm run audit:verify [-- --json]                  walks the hash chains; exit code 1 on a break
 */

const USAGE = 'Usage: npm run audit -- ticket <ticket id or number> [--json]\n       npm run audit -- verify [--json]';

export function formatTimeline(history: TicketHistory): string[] {
  const { integrity } = history;
  const lines = [
    `Ticket #${history.number} (${history.ticketId}): ${history.events.length} events, ${integrity.ok ? `hash chain intact (head ${integrity.head?.slice(0, 16)}…)` : 'HASH CHAIN BROKEN'}`,
    '',
  ];
  const who = history.events.map((e) => (e.actor ? `${e.actor.name} (${e.actor.role}, ${e.actor.platform})` : 'system'));
  const width = Math.max(3, ...who.map((w) => w.length));
  lines.push(`${'rev'.padStart(4)}  ${'time (UTC)'.padEnd(19)}  ${'who'.padEnd(width)}  what`);
  history.events.forEach((event, index) => {
    lines.push(`${String(event.revision).padStart(4)}  ${event.at.replace('T', ' ').slice(0, 19)}  ${who[index]!.padEnd(width)}  ${event.summary}`);
  });
  if (integrity.firstBreak) {
    const b = integrity.firstBreak;
    lines.push('', `First broken link: revision ${b.revision} (${b.type}): ${b.reason}`);
  }
  return lines;
}

export function formatVerification(report: VerifyReport): string[] {
  const chains = report.logChain ? 'stream chains and the log chain' : 'stream chains (this store keeps no log chain)';
  const lines = [`Checked ${report.events} events in ${report.streams} streams: ${chains}, in ${report.durationMs} ms.`];
  if (!report.logChain) {
    lines.push('Without a log chain, events cut from the end of a stream or of the log, and whole streams removed, are not seen (docs/audit.md).');
  }
  if (report.ok) {
    lines.push(`Intact. Head: position ${report.head.position}, ${report.logChain ? `log link ${report.head.log}` : `stream link ${report.head.hash}`}`);
    lines.push('Keep the head link somewhere else: a later check that still reaches it proves the history before it unchanged.');
    return lines;
  }
  const b = report.firstBreak!;
  lines.push(
    `BROKEN: the first broken link is in the ${b.chain} chain at stream ${b.streamId}, revision ${b.revision} (position ${b.position}, ${b.type}, event ${b.eventId}).`,
    `  ${b.reason}`,
    `  expected ${b.expected}`,
    `  stored   ${b.stored ?? '(none)'}`,
  );
  return lines;
}

async function verify(events: EventStore, json: boolean): Promise<number> {
  const head = await events.headPosition();
  const bar =
    process.stderr.isTTY && !json
      ? new SingleBar({ format: ' {bar} {percentage}% | {events} events', stream: process.stderr, hideCursor: true }, Presets.shades_classic)
      : null;
  bar?.start(Math.max(head, 1), 0, { events: 0 });
  const report = await verifyLog(events, { onProgress: ({ position, events: count }) => bar?.update(Math.min(position, head), { events: count }) });
  bar?.stop();
  console.log(json ? JSON.stringify(report, null, 2) : formatVerification(report).join('\n'));
  return report.ok ? 0 : 1;
}

async function main(args: string[]): Promise<number> {
  const json = args.includes('--json');
  const [command, ticket] = args.filter((arg) => arg !== '--json');
  if (command !== 'verify' && !(command === 'ticket' && ticket)) {
    console.error(USAGE);
    return 2;
  }
  const events = createEventStore(loadConfig());
  try {
    if (command === 'verify') return await verify(events, json);
    const history = await ticketHistory(events, ticket!);
    console.log(json ? JSON.stringify(history, null, 2) : formatTimeline(history).join('\n'));
    return history.integrity.ok ? 0 : 1;
  } finally {
    await events.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
