import type { AppDeps } from '../deps';

/**
 * Whether the support mailbox can be read, as the process reading it last found (docs/email.md). Kept
 * as a document beside the read models, like a webhook's progress: a fact about a far side, not a
 * change of the desk's state, so not an event. GET /api/health is `degraded` while it is `down`.
 */
const MAILBOX_STATUS = 'mailbox_status';

export interface MailboxStatus {
  _id: 'mailbox';
  state: 'up' | 'down' | 'off';
  error: string | null;
  since: string;
}

export async function recordMailboxStatus(
  deps: Pick<AppDeps, 'readStore' | 'clock'>,
  state: MailboxStatus['state'],
  error: string | null = null,
): Promise<void> {
  const statuses = deps.readStore.collection<MailboxStatus>(MAILBOX_STATUS);
  const current = await statuses.findOne({ _id: 'mailbox' });
  if (current?.state === state && current.error === error) return;
  const since = current?.state === state ? current.since : deps.clock().toISOString();
  await statuses.updateOne({ _id: 'mailbox' }, { $set: { state, error, since } }, { upsert: true });
}

export async function mailboxStatus(deps: Pick<AppDeps, 'readStore'>): Promise<MailboxStatus | null> {
  return deps.readStore.collection<MailboxStatus>(MAILBOX_STATUS).findOne({ _id: 'mailbox' });
}
