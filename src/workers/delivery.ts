import type { AppDeps } from '../app/deps';
import { isWrongExpectedVersion } from '../platform/eventstore/port';
import { metadataOf } from '../platform/commands';
import type { Job } from '../platform/queue/port';

export const deliveryStream = (jobId: string) => `delivery-${jobId}`;

export interface DeliveryRecord {
  channel: 'telegram' | 'email';
  /** Chat id or e-mail address. */
  recipient: string;
  ticketId?: string | null;
  /** What was sent, in a few words (the template or mail kind). */
  kind: string;
}

/**
 * Sends a job's message at most once per job. Delivery of jobs is at least once (a retry after a
 * timeout, a worker that died after sending), so the fact "this job was delivered" is written to
 * the log after the send and checked before it: a job that comes back after a successful send is
 * skipped. Auditors read these `NotificationDelivered` events as the record of what went out. The
 * only double left is a crash between the far side accepting and this record being written.
 */
export async function deliverOnce(deps: Pick<AppDeps, 'events' | 'clock'>, job: Job, record: DeliveryRecord, send: () => Promise<void>): Promise<boolean> {
  const stream = deliveryStream(job.id);
  const [already] = await deps.events.readStream(stream, { maxCount: 1 });
  if (already) return false;
  await send();
  try {
    await deps.events.append(
      stream,
      [
        {
          type: 'NotificationDelivered',
          data: { jobId: job.id, ...record, ticketId: record.ticketId ?? null, attempt: job.attemptsMade + 1 },
          metadata: metadataOf({ actor: { userId: 'system', role: 'system', platform: 'system' }, now: deps.clock() }),
        },
      ],
      'no_stream',
    );
  } catch (error) {
    // Another worker ran the same job at the same moment and recorded it first: nothing to add.
    if (!isWrongExpectedVersion(error)) throw error;
  }
  return true;
}
