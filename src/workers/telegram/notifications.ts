import type { AppDeps } from '../../app/deps';
import { renderBotMessage } from '../../domain/botSettings/botSettings';
import type { BotMessages } from '#contract/botSettings';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { ReactionPage } from '../reactor';
import { loadBotSettings } from '../../projections/settings';
import type { TicketView } from '../../projections/tickets';
import type { PlannedJob } from '../../app/jobs/planned';
import { STATUS_WORDS, mergedText } from '#contract/tickets';
import { type CustomerNotice, customerNoticeOf } from '../ticketNotices';
import { sendJob } from '../../app/jobs/telegram';

export const ACCESS_APPROVED_TEXT = 'Good news: your access to this support bot has been approved. Send /start to begin.';

/** A ticket's values for the Bot Messages variables ({message} is a reply's own). */
export const ticketValues = (ticket: TicketView) => ({
  ticketId: ticket.ticketId,
  category: ticket.category.name,
  status: STATUS_WORDS[ticket.status],
  agentName: ticket.assignedAgent ? `${ticket.assignedAgent.firstName} ${ticket.assignedAgent.lastName}`.trim() : '',
  message: '',
});

/** A notice in the words an admin set in Bot Messages, with its variables filled in. */
function telegramText(messages: BotMessages, { notice, ticket }: CustomerNotice): { template: keyof BotMessages | 'merged'; text: string } {
  const values = ticketValues(ticket);
  let template: keyof BotMessages;
  switch (notice.kind) {
    case 'created':
      template = 'ticketCreatedMessage';
      break;
    case 'status':
      values.status = STATUS_WORDS[notice.to];
      template = notice.to === 'closed' ? 'ticketClosedMessage' : 'ticketUpdatedMessage';
      break;
    case 'assigned':
      values.agentName = notice.agentName;
      template = 'agentAssignedMessage';
      break;
    case 'reply': {
      values.agentName = notice.senderName;
      const files = notice.files.map((file) => `📎 ${file.originalName}`);
      values.message = [notice.content, ...files].filter((line) => line !== '').join('\n');
      template = 'newMessageNotification';
      break;
    }
    case 'merged':
      return { template: 'merged', text: mergedText(ticket.ticketId, notice.targetNumber) };
  }
  return { template, text: renderBotMessage(messages[template], values) };
}

/**
 * The reaction that tells Telegram customers what happened to their tickets (staff replies, never
 * internal notes; status, assignment, closure) and tells an approved user they may start.
 */
export async function telegramNotices(event: RecordedEvent, deps: AppDeps, page?: ReactionPage): Promise<PlannedJob[]> {
  if (event.type === 'AccessRequestApproved') {
    const { telegramId } = event.data as { telegramId: string };
    return [sendJob(`telegram:${event.id}`, { chatId: telegramId, text: ACCESS_APPROVED_TEXT, kind: 'accessApproved' })];
  }
  const found = await customerNoticeOf(event, deps.projections.reader, deps.events, page);
  if (!found?.customer.telegramId) return [];
  const { messages } = await loadBotSettings(deps.projections.reader);
  const { template, text } = telegramText(messages, found);
  const chatId = found.customer.telegramId;
  const jobs = [sendJob(`telegram:${event.id}`, { chatId, text, ticketId: found.ticket._id, kind: template })];
  // A staff reply's files follow its text, in the same chat's line (an internal note never gets here).
  if (found.notice.kind === 'reply') {
    found.notice.files.forEach((file, index) => {
      jobs.push(
        sendJob(`telegram:${event.id}:file:${index}`, {
          chatId,
          text: '',
          ticketId: found.ticket._id,
          kind: 'file',
          file: { fileId: file.fileId, name: file.originalName, mimeType: file.mimeType },
        }),
      );
    });
  }
  return jobs;
}
