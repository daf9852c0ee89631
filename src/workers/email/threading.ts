/**
 * The desk's own Message-IDs carry the ticket they belong to, so a customer's reply (`In-Reply-To`,
 * `References`) finds its ticket without a lookup: `<reply.<job>.<ticket id>@<support domain>>`.
 */
const DESK_MESSAGE_ID = /^<reply\.[^.]+\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^>]+>$/;

export const replyMessageId = (jobId: string, ticketId: string, supportAddress: string) =>
  `<reply.${jobId.replace(/[^A-Za-z0-9-]/g, '')}.${ticketId}@${supportAddress.split('@')[1] ?? 'localhost.localdomain'}>`;

export const ticketOfReplyId = (messageId: string): string | null => DESK_MESSAGE_ID.exec(messageId.trim())?.[1] ?? null;
