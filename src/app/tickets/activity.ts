import type { Message } from '#contract/responses';
import { STATUS_WORDS } from '#contract/tickets';
import { loadDirectory } from '../../projections/directory';
import { type ActivityLine, TICKET_ACTIVITY } from '../../projections/ticketActivity';
import type { AppDeps } from '../deps';

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/**
 * The quiet system lines of a ticket's conversation (status changes, assignments, unassignments),
 * shaped as API.md messages of type "system", from the activity read model with names joined from
 * the directory in one query. Everyone who may see the ticket sees them. Lines older than `since`
 * (the oldest message returned beside them) are left out.
 */
export async function activityLines(deps: Pick<AppDeps, 'readStore'>, ticketId: string, since: string | null): Promise<Message[]> {
  const filter = since === null ? { ticket: ticketId } : { ticket: ticketId, at: { $gte: since } };
  const found = await deps.readStore.collection<ActivityLine>(TICKET_ACTIVITY).find(filter, { sort: { at: 1 } });
  const people = found.flatMap((line) => [line.agentId, line.actorId]).filter((id): id is string => id !== null);
  const directory = await loadDirectory(deps.readStore, people, []);
  return found.map((line) => {
    const agent = line.agentId === null ? null : fullName(directory.person(line.agentId));
    const content =
      line.kind === 'status'
        ? `Status changed to ${STATUS_WORDS[line.status!]}`
        : line.kind === 'assigned'
          ? `Assigned to ${agent}`
          : `${agent} was unassigned`;
    const sender = line.actorId === null ? null : directory.person(line.actorId);
    return {
      _id: line._id,
      ticket: ticketId,
      content,
      messageType: 'system',
      isInternal: false,
      platform: line.platform,
      sender: { _id: line.actorId ?? 'system', firstName: sender?.firstName ?? 'System', lastName: sender?.lastName ?? '', role: sender?.role ?? 'admin' },
      createdAt: line.at,
      editedAt: null,
      attachments: [],
    };
  });
}

/** Messages and system lines in one conversation, oldest first (a line at the same moment comes after the message). */
export function withActivity(messages: Message[], lines: Message[]): Message[] {
  // Array sort is stable: at the same moment, the messages (listed first) stay ahead.
  return [...messages, ...lines].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}
