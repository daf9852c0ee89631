import { useEffect } from 'react';
import { SLA_TARGET_WORDS } from '#contract/sla';
import { Card } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { onLive } from '../../lib/live';
import { useTicketSlaQuery } from './api';
import { targetNow, useServerNow } from './SlaChip';

/** The ticket's details column: the policy it follows and every target's state, ticking live. */
export function SlaDetails({ ticketId, version }: { ticketId: string; version: string }) {
  const { data, refetch } = useTicketSlaQuery({ id: ticketId, version });
  useEffect(() => onLive<{ ticketId: string }>('sla_warning', (warning) => warning.ticketId === ticketId && void refetch()), [refetch, ticketId]);
  const now = useServerNow(data?.now);
  const sla = data?.sla;
  if (!sla) return null;
  return (
    <Card title="Service levels">
      <p className="muted small">
        {sla.policyName} · version {sla.version} · {sla.calendarName ? `business hours of ${sla.calendarName}` : 'around the clock'}
      </p>
      <ul className="sla-targets">
        {sla.targets.map((target) => {
          const { state, text } = targetNow(target, now);
          return (
            <li key={`${target.target}-${target.episode}`} data-sla={state}>
              <strong>{text}</strong>
              <span className="muted small">
                {' '}
                {SLA_TARGET_WORDS[target.target]} target {target.targetMinutes} min
                {target.dueAt ? ` · due ${formatDateTime(target.dueAt)}` : ''}
              </span>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
