import { STATUS_WORDS } from '#contract/tickets';
import { findPerson } from '../../projections/directory';
import { readTicketHistory } from '../../projections/history';
import type { AppDeps } from '../../app/deps';
import type { Message } from '#contract/responses';

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/**
 * The quiet system lines of a ticket's conversation (issue 25): its status changes, assignments and
 * unassignments, read from the ticket's own stream and shaped as API.md messages of type "system".
 * Everyone who may see the ticket sees them; internal notes and the outcome are never among them.
 * Lines older than `since` (the oldest message returned beside them) are left out.
 */
export async function activityLines(deps: Pick<AppDeps, 'events' | 'readStore'>, ticketId: string, since: string | null): Promise<Message[]> {
  const stream = await readTicketHistory(deps.events, ticketId);
  const lines: Message[] = [];
  for (const event of stream) {
    const at = event.metadata.occurredAt;
    if (since !== null && at < since) continue;
    let content: string;
    if (event.type === 'TicketStatusChanged') content = `Status changed to ${STATUS_WORDS[event.data.to]}`;
    else if (event.type === 'AgentAssignedToTicket') content = `Assigned to ${fullName(await findPerson(deps.readStore, event.data.agentId))}`;
    else if (event.type === 'AgentUnassignedFromTicket') content = `${fullName(await findPerson(deps.readStore, event.data.agentId))} was unassigned`;
    else continue;
    const actor = event.metadata.actor;
    const sender = actor ? await findPerson(deps.readStore, actor.userId) : null;
    lines.push({
      _id: event.id,
      ticket: ticketId,
      content,
      messageType: 'system',
      isInternal: false,
      platform: actor?.platform === 'telegram' ? 'telegram' : 'web',
      sender: { _id: actor?.userId ?? 'system', firstName: sender?.firstName ?? 'System', lastName: sender?.lastName ?? '', role: sender?.role ?? 'admin' },
      createdAt: at,
      editedAt: null,
      attachments: [],
    });
  }
  return lines;
}

/** Messages and system lines in one conversation, oldest first (a line at the same moment comes after the message). */
export function withActivity(messages: Message[], lines: Message[]): Message[] {
  // Array sort is stable: at the same moment, the messages (listed first) stay ahead.
  return [...messages, ...lines].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}
