/**
 * The delivery ledger: one stream per queued notice (`delivery-<jobId>`) saying what was tried and
 * how it ended, so that a job run again never sends twice what is known to have gone out, and
 * auditors read what went out and when (docs/notifications.md).
 */
export const deliveryStream = (jobId: string) => `delivery-${jobId}`;

export const DELIVERY_EVENTS = {
  /** Written before each try's call: what is about to go out, and which try it is. */
  sending: 'NotificationSending',
  /** The far side accepted it. */
  delivered: 'NotificationDelivered',
  /** It went out and no answer came: it may have arrived, so it is not sent again on its own. */
  uncertain: 'NotificationUncertain',
  /** An admin asked for an uncertain notice to be sent again (accepting a possible second copy). */
  resendApproved: 'NotificationResendApproved',
} as const;
