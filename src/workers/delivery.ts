import type { AppDeps } from '../app/deps';
import { DELIVERY_EVENTS, deliveryStream } from '../app/deliveries/ledger';
import { isWrongExpectedVersion } from '../platform/eventstore/port';
import { metadataOf } from '../platform/commands';
import { type Job, UncertainOutcomeError } from '../platform/queue/port';

export interface DeliveryRecord {
  channel: 'telegram' | 'email';
  /** Chat id or e-mail address. */
  recipient: string;
  ticketId?: string | null;
  /** What was sent, in a few words (the template or mail kind). */
  kind: string;
}

/**
 * Sends a job's message at most once per job, as far as the far side's answers allow. Delivery of
 * jobs is at least once (a retry, a worker that died), so each try first reads the job's ledger
 * (`delivery-<jobId>`): a job already delivered is skipped, and one whose outcome is uncertain is not
 * sent again but fails for good, waiting for an admin (Deliveries), unless an admin approved sending
 * it again. Before the call the try is recorded (`NotificationSending`), after it the outcome
 * (`NotificationDelivered`, or `NotificationUncertain` when the message went out and no answer came).
 * The only double left is a crash between the far side accepting and `NotificationDelivered` being
 * written: the next run finds the try without an outcome and sends again.
 */
export async function deliverOnce(deps: Pick<AppDeps, 'events' | 'clock'>, job: Job, record: DeliveryRecord, send: () => Promise<void>): Promise<boolean> {
  const stream = deliveryStream(job.id);
  const [last] = await deps.events.readStream(stream, { direction: 'backwards', maxCount: 1 });
  if (last?.type === DELIVERY_EVENTS.delivered) return false;
  if (last?.type === DELIVERY_EVENTS.uncertain) throw new UncertainOutcomeError(String(last.data.reason));
  const data = { jobId: job.id, ...record, ticketId: record.ticketId ?? null, attempt: job.attemptsMade + 1 };
  const recordAs = (type: string, extra: Record<string, unknown> = {}) => ({
    type,
    data: { ...data, ...extra },
    metadata: metadataOf({ actor: { userId: 'system', role: 'system', platform: 'system' }, now: deps.clock() }),
  });
  try {
    await deps.events.append(stream, [recordAs(DELIVERY_EVENTS.sending)], last ? last.revision : 'no_stream');
  } catch (error) {
    // Another worker started this very job at the same moment: it sends, this one comes back later.
    if (isWrongExpectedVersion(error)) throw new Error('another worker is sending this notice now', { cause: error });
    throw error;
  }
  try {
    await send();
  } catch (error) {
    if (error instanceof UncertainOutcomeError) await deps.events.append(stream, [recordAs(DELIVERY_EVENTS.uncertain, { reason: error.message })], 'any');
    throw error;
  }
  await deps.events.append(stream, [recordAs(DELIVERY_EVENTS.delivered)], 'any');
  return true;
}
