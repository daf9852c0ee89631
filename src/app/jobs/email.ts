export const EMAIL_QUEUE = 'email';

export interface EmailJob {
  to: string;
  subject: string;
  text: string;
  ticketId: string;
  /** created, status or reply. */
  kind: string;
}
