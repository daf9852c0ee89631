import { loadSystemSettings } from '../../projections/settings';
import type { WorkerChannel } from '../channels';
import { ChannelWatch } from '../channelWatch';
import { deliverOnce } from '../delivery';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';
import { NOTICE_READS, NOTICE_TYPES } from '../ticketNotices';
import { createMailer } from './mailer';
import { emailNotices, fallbackSender, publicUrl } from './notifications';

/** E-mail notifications to customers (nodemailer): SMTP_URL, or `.eml` files in DATA_DIR/outbox. */
export const emailChannel: WorkerChannel = {
  name: 'email',
  reaction: emailNotices,
  types: NOTICE_TYPES,
  reads: NOTICE_READS,
  async start(deps) {
    // The SMTP server's return after an outage runs every mail waiting on it at once.
    const watch: ChannelWatch = new ChannelWatch('email', deps, [EMAIL_QUEUE], () => mailer.probe());
    const mailer = createMailer(deps.config, (answered) => watch.observe(answered));
    deps.queue.process<EmailJob>(
      EMAIL_QUEUE,
      async (job) => {
        const settings = await loadSystemSettings(deps.readStore);
        const from = { name: settings.systemName, address: settings.supportEmail || fallbackSender(publicUrl(deps.config)) };
        const { to, subject, text, ticketId, kind } = job.data;
        await deliverOnce(deps, job, { channel: 'email', recipient: to, ticketId, kind }, () => mailer.send({ from, to, subject, text }, job.id));
      },
      { concurrency: 2 },
    );
    return async () => {
      watch.stop();
      mailer.close();
    };
  },
};
