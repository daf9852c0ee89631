import path from 'node:path';
import { uploadsDir } from '../../app/tickets/files';
import { loadSystemSettings } from '../../projections/settings';
import type { WorkerChannel } from '../channels';
import { ChannelWatch } from '../channelWatch';
import { deliverOnce } from '../delivery';
import { EMAIL_INBOUND_QUEUE, EMAIL_QUEUE, type EmailInboundJob, type EmailJob, PASSWORD_LINK_SLOT } from '../../app/jobs/email';
import { passwordLinkToken } from '../../app/identity/passwordLinks';
import { InboundMail } from './inbound';
import { MailboxReader } from './mailbox';
import { NOTICE_READS, NOTICE_TYPES } from '../ticketNotices';
import { createMailer } from './mailer';
import { PASSWORD_LINK_ISSUED, emailNotices, fallbackSender, publicUrl } from './notifications';
import { mentionMails } from './mentions';

/**
 * E-mail both ways (docs/email.md): notices and replies to customers (nodemailer: SMTP_URL, or `.eml`
 * files in DATA_DIR/outbox), and the support mailbox read over IMAP into tickets.
 */
export const emailChannel: WorkerChannel = {
  name: 'email',
  reaction: async (event, deps, page) => [...(await emailNotices(event, deps, page)), ...(await mentionMails(event, deps))],
  types: [...NOTICE_TYPES, PASSWORD_LINK_ISSUED],
  reads: NOTICE_READS,
  async start(deps, lease) {
    // The SMTP server's return after an outage runs every mail waiting on it at once.
    const watch: ChannelWatch = new ChannelWatch('email', deps, [EMAIL_QUEUE], () => mailer.probe());
    const mailer = createMailer(deps.config, (answered) => watch.observe(answered));
    deps.queue.process<EmailJob>(
      EMAIL_QUEUE,
      async (job) => {
        const settings = await loadSystemSettings(deps.readStore);
        const from = { name: settings.systemName, address: settings.supportEmail || fallbackSender(publicUrl(deps.config)) };
        const { to, subject, ticketId, kind, thread, passwordLink, attachments = [] } = job.data;
        // The link's token goes in the fragment: a browser never sends it to the server in the address, so no access log holds it.
        const text = passwordLink
          ? job.data.text.replace(
              PASSWORD_LINK_SLOT,
              `${publicUrl(deps.config)}/set-password#token=${passwordLinkToken(deps, passwordLink.userId, passwordLink.linkId)}`,
            )
          : job.data.text;
        // A reply in an e-mail conversation answers in the customer's thread, and their answer comes back to the support address.
        const threaded = thread
          ? {
              replyTo: from.address,
              messageId: thread.messageId,
              ...(thread.inReplyTo ? { inReplyTo: thread.inReplyTo } : {}),
              references: thread.references,
              attachments: attachments.map((file) => ({ filename: file.name, path: path.join(uploadsDir(deps), file.fileId), contentType: file.mimeType })),
            }
          : {};
        await deliverOnce(deps, job, { channel: 'email', recipient: to, ticketId, kind }, () => mailer.send({ from, to, subject, text, ...threaded }, job.id));
      },
      { concurrency: 2 },
    );
    // Every process takes fetched mail from the queue; only the lease holder reads the mailbox.
    const inbound = new InboundMail(deps);
    deps.queue.process<EmailInboundJob>(EMAIL_INBOUND_QUEUE, (job) => inbound.take(job.data));
    const reader = new MailboxReader(deps, () => lease.held);
    const stopFollowing = lease.onChange(() => reader.refresh());
    reader.start();
    return async () => {
      stopFollowing();
      await reader.stop();
      watch.stop();
      mailer.close();
    };
  },
};
