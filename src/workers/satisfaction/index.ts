import { SATISFACTION_QUEUE, type SurveyJob } from '../../app/jobs/satisfaction';
import type { WorkerChannel } from '../channels';
import { NOTICE_READS } from '../ticketNotices';
import { sendSurvey, surveyOnResolution } from './survey';

/** The satisfaction survey after each resolution (docs/satisfaction.md): planned by the notifications reactor, sent through Telegram and e-mail. */
export const satisfactionChannel: WorkerChannel = {
  name: 'satisfaction',
  reaction: surveyOnResolution,
  types: ['TicketStatusChanged'],
  reads: [...NOTICE_READS, 'satisfaction'],
  async start(deps) {
    deps.queue.process<SurveyJob>(SATISFACTION_QUEUE, (job) => sendSurvey(deps, job), { concurrency: 2 });
    return async () => undefined;
  },
};
