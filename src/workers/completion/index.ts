import type { PlannedJob } from '../../app/jobs/planned';
import { COMPLETION_QUEUE, type CompletionJob } from '../../app/jobs/completion';
import { completeInterrupted } from '../../app/tickets/merge';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import type { TicketEvent } from '../../domain/ticket/ticket';
import type { AppDeps } from '../../app/deps';
import type { WorkerChannel } from '../channels';

/** What the first append of a merge or split leaves to check: the target or new ticket must follow. */
function completionOf(recorded: RecordedEvent, deps: AppDeps): PlannedJob[] {
  const event = recordedAs<TicketEvent>(recorded);
  let step: CompletionJob['step'];
  if (event.type === 'TicketMergedInto') step = { type: event.type, sourceId: event.data.ticketId, targetId: event.data.targetId };
  else if (event.type === 'MessagesMovedOut' && event.data.messages[0])
    step = { type: event.type, sourceId: event.data.ticketId, newTicketId: event.data.newTicketId, messageId: event.data.messages[0].messageId };
  else return [];
  if (!recorded.metadata.actor) return [];
  const data: CompletionJob = { actor: recorded.metadata.actor, step };
  // Checked after the request that wrote it has had its time to write the second half itself.
  return [
    {
      queue: COMPLETION_QUEUE,
      name: 'complete',
      data,
      options: { jobId: `complete:${recorded.id}`, delayMs: deps.config.MERGE_COMPLETION_DELAY_MS, backoffMs: 5000 },
    },
  ];
}

/**
 * Completes merges and splits cut short between their two appends (docs/tickets.md): the
 * notifications reactor plans a check per first event; the check, after MERGE_COMPLETION_DELAY_MS,
 * runs the rest as the agent who started it (or takes the merge back when its target has gone), and
 * does nothing when it was done meanwhile.
 */
export const completionChannel: WorkerChannel = {
  name: 'completion',
  reaction: async (event, deps) => completionOf(event, deps),
  types: ['TicketMergedInto', 'MessagesMovedOut'],
  reads: [],
  async start(deps) {
    deps.queue.process<CompletionJob>(
      COMPLETION_QUEUE,
      async (job) => {
        const outcome = await completeInterrupted(deps, job.data.step, { actor: job.data.actor, now: deps.clock() });
        if (outcome === 'completed') deps.logger.warn({ step: job.data.step }, 'completed a merge or split cut short between its appends');
        if (outcome === 'taken back') deps.logger.warn({ step: job.data.step }, 'took back a merge cut short between its appends: its target had gone');
      },
      { concurrency: 1 },
    );
    return async () => undefined;
  },
};
