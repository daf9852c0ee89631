import type { AppDeps } from '../../app/deps';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';
import type { PlannedJob } from '../../app/jobs/planned';
import { SATISFACTION_QUEUE, type SurveyJob, surveyButtonData } from '../../app/jobs/satisfaction';
import { sendJob } from '../../app/jobs/telegram';
import { ratingLink, signRatingLink } from '../../app/satisfaction/links';
import { isTelegramOnlyEmail } from '../../app/telegram/customers';
import { isEpisodeOpen } from '../../domain/satisfaction/satisfaction';
import { ticketStream } from '../../domain/ticket/ticket';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { Job } from '../../platform/queue/port';
import { findEpisode, loadSatisfactionSettings } from '../../projections/satisfaction';
import { loadSystemSettings } from '../../projections/settings';
import { USERS, type UserView } from '../../projections/users';
import { publicUrl } from '../email/notifications';
import { oneLine } from '../ticketNotices';

/**
 * A resolution plans one survey job, its id derived from the resolution's event: the notifications
 * reactor's checkpoint and the queue's refusal of a known id make it once per episode, across
 * restarts and processes alike. The job waits the configured delay, so the survey reads the
 * settings and the episode as they are when it is due.
 */
export async function surveyOnResolution(event: RecordedEvent, deps: AppDeps): Promise<PlannedJob[]> {
  if (event.type !== 'TicketStatusChanged' || event.data.to !== 'resolved') return [];
  const settings = await loadSatisfactionSettings(deps.readStore);
  if (!settings.enabled) return [];
  const ticketId = String(event.data.ticketId);
  // The episode this resolution opened: the resolutions of the ticket up to this event.
  const stream = await deps.events.readStream(ticketStream(ticketId), { maxCount: event.revision + 1 });
  const episode = stream.filter((recorded) => recorded.type === 'TicketStatusChanged' && recorded.data.to === 'resolved').length;
  const data: SurveyJob = { ticketId, episode };
  return [
    { queue: SATISFACTION_QUEUE, name: 'survey', data, options: { jobId: `survey:${event.id}`, delayMs: settings.delayMinutes * 60_000, backoffMs: 5000 } },
  ];
}

/** The survey as a Telegram message and an e-mail, each a job of its channel whose id derives from this one. */
export async function sendSurvey(deps: AppDeps, job: Job<SurveyJob>): Promise<void> {
  const { ticketId, episode: number } = job.data;
  const settings = await loadSatisfactionSettings(deps.readStore);
  const episode = await findEpisode(deps.readStore, ticketId, number);
  // Off since, deleted, reopened, closed or already rated (on the web) while the survey waited: nothing to ask.
  if (!settings.enabled || !episode || episode.score !== null || !isEpisodeOpen(episode, deps.clock())) return;
  const customer = await deps.readStore.collection<UserView>(USERS).findOne({ _id: episode.customerId });
  if (!customer?.isActive) return;
  const question = `${settings.question}\n\nTicket #${episode.number} “${oneLine(episode.title)}”`;
  const jobs: PlannedJob[] = [];
  if (settings.channels.telegram && customer.telegramId) {
    const buttons = settings.labels.map((label, index) => ({ text: `${index + 1} ${label}`, callbackData: surveyButtonData(ticketId, number, index + 1) }));
    jobs.push(
      sendJob(`${job.id}:telegram`, { chatId: customer.telegramId, text: question, buttons: buttons.map((button) => [button]), ticketId, kind: 'survey' }),
    );
  }
  const system = await loadSystemSettings(deps.readStore);
  if (settings.channels.email && system.emailNotifications && !isTelegramOnlyEmail(customer.email)) {
    const token = signRatingLink(deps, { ticketId, episode: number, customerId: customer._id }, new Date(episode.resolvedAt));
    const base = publicUrl(deps.config);
    const links = settings.labels.map((label, index) => `${index + 1} – ${label}: ${ratingLink(base, ticketId, token, index + 1)}`).join('\n');
    const mail: EmailJob = {
      to: customer.email,
      ticketId,
      kind: 'survey',
      subject: oneLine(`[${system.systemName}] How did we do on ticket #${episode.number}?`),
      text: `Hello ${customer.firstName},\n\n${question}\n\nChoose a rating (you can change it for 7 days):\n\n${links}\n\n— ${system.systemName}\n`,
    };
    jobs.push({
      queue: EMAIL_QUEUE,
      name: 'survey',
      data: mail,
      options: { jobId: `${job.id}:email`, group: `mailbox:${customer.email.toLowerCase()}`, backoffMs: 5000 },
    });
  }
  for (const planned of jobs) await deps.queue.add(planned.queue, planned.name, planned.data, planned.options);
}
