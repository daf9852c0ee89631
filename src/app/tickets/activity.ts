import type { Message } from '#contract/responses';
import { STATUS_WORDS, type StatusChangeReason, type TicketStatus } from '#contract/tickets';
import type { Role } from '#contract/users';
import { loadDirectory } from '../../projections/directory';
import { type ActivityView, TICKET_ACTIVITY } from '../../projections/ticketActivity';
import type { AppDeps } from '../deps';

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/**
 * The quiet system lines of a ticket's conversation (status changes, assignments, unassignments),
 * shaped as docs/contract.md messages of type "system", from the activity read model with names joined from
 * the directory in one query. Everyone who may see the ticket sees them, in words for who reads them:
 * the reopening a customer's own reply made says "you" to the customer. Lines older than `since` (the
 * oldest message returned beside them) are left out.
 */
export async function activityLines(deps: Pick<AppDeps, 'readStore'>, ticketId: string, since: string | null, viewer: Role): Promise<Message[]> {
  const view = await deps.readStore.collection<ActivityView>(TICKET_ACTIVITY).findOne({ _id: ticketId });
  const lines = (view?.lines ?? []).filter((line) => since === null || line.at >= since);
  const people = lines.flatMap((line) => [
    ...(line.kind === 'status' || line.kind === 'moved' ? [] : [line.value]),
    ...(line.actor === null ? [] : [line.actor]),
  ]);
  const directory = await loadDirectory(deps.readStore, people, []);
  return lines.map((line) => {
    const content =
      line.kind === 'status'
        ? statusLine(line.value, line.reason, viewer)
        : line.kind === 'moved'
          ? `Moved to #${line.value}`
          : line.kind === 'assigned'
            ? `Assigned to ${fullName(directory.person(line.value))}`
            : `${fullName(directory.person(line.value))} was unassigned`;
    const sender = line.actor === null ? null : directory.person(line.actor);
    return {
      _id: `${ticketId}:${line.revision}`,
      ticket: ticketId,
      content,
      messageType: 'system',
      isInternal: false,
      platform: line.platform,
      sender: { _id: line.actor ?? 'system', firstName: sender?.firstName ?? 'System', lastName: sender?.lastName ?? '', role: sender?.role ?? 'admin' },
      createdAt: line.at,
      editedAt: null,
      attachments: [],
    };
  });
}

/** Only a customer can reopen by replying, so a customer reading the line reads of their own message. */
function statusLine(status: TicketStatus, reason: StatusChangeReason | undefined, viewer: Role): string {
  if (reason !== 'customer-replied') return `Status changed to ${STATUS_WORDS[status]}`;
  return viewer === 'customer'
    ? `You replied, so the ticket is ${STATUS_WORDS[status]} again`
    : `Status changed to ${STATUS_WORDS[status]}: the customer replied`;
}

/** Messages and system lines in one conversation, oldest first (a line at the same moment comes after the message). */
export function withActivity(messages: Message[], lines: Message[]): Message[] {
  // Array sort is stable: at the same moment, the messages (listed first) stay ahead.
  return [...messages, ...lines].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}
