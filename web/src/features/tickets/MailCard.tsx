import { useState } from 'react';
import { Banner, Card } from '../../components/ui';
import type { TicketMail } from '#contract/responses';
import { useTicketMailQuery } from './api';

/**
 * The mails of a ticket that came by e-mail, for staff (docs/email.md): who sent each, a warning when
 * the sender could not be verified, and the whole original behind "Show original" (the conversation
 * shows the text with quotes and signature trimmed).
 */
export function MailCard({ ticketId, version }: { ticketId: string; version: string }) {
  const { data } = useTicketMailQuery({ ticketId, version });
  return <MailList mails={data?.mails ?? []} />;
}

export function MailList({ mails }: { mails: TicketMail[] }) {
  const [open, setOpen] = useState<string | null>(null);
  if (mails.length === 0) return null;
  return (
    <Card title="E-mail">
      <ul className="mail-list">
        {mails.map((mail) => (
          <li key={mail.key}>
            <div>
              From <strong>{mail.from}</strong>: {mail.subject || '(no subject)'}
            </div>
            {mail.warning && <Banner kind="warning">{mail.warning}</Banner>}
            {mail.original !== null && (
              <button type="button" className="button button-ghost" onClick={() => setOpen(open === mail.key ? null : mail.key)}>
                {open === mail.key ? 'Hide original' : 'Show original'}
              </button>
            )}
            {open === mail.key && <pre className="mail-original">{mail.original}</pre>}
          </li>
        ))}
      </ul>
    </Card>
  );
}
