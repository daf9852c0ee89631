import { setTimeout as sleep } from 'node:timers/promises';
import { type CommandContext, metadataOf } from '../../platform/commands';
import { FIRST_TICKET_NUMBER, TICKET_NUMBER_STREAM } from '../../domain/ticket/ticket';
import { type EventStore, isWrongExpectedVersion } from '../../platform/eventstore/port';

/**
 * Hands out ticket display numbers: unique, increasing, never reused. Event n of the sequence
 * stream holds number 1001 + n, so appending at an exact revision is the whole allocation: of two
 * racing processes exactly one gets a number, and the other takes the next. A number whose ticket
 * never got created stays spent (a gap, never a duplicate).
 */
export class TicketNumbers {
  /** Allocations of this process go one at a time; other processes are held off by the revision check. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly events: EventStore) {}

  allocate(ticketId: string, context: CommandContext): Promise<number> {
    const next = this.queue.then(() => this.append(ticketId, context));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async append(ticketId: string, context: CommandContext): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const [last] = await this.events.readStream(TICKET_NUMBER_STREAM, { direction: 'backwards', maxCount: 1 });
      const revision = last?.revision ?? null;
      const number = FIRST_TICKET_NUMBER + (revision === null ? 0 : revision + 1);
      try {
        await this.events.append(
          TICKET_NUMBER_STREAM,
          [{ type: 'TicketNumberAllocated', data: { number, ticketId }, metadata: metadataOf(context) }],
          revision ?? 'no_stream',
        );
        return number;
      } catch (error) {
        if (!isWrongExpectedVersion(error) || attempt >= 50) throw error;
        await sleep(Math.random() * 5 * attempt);
      }
    }
  }
}
