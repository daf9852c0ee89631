import { useEffect, useState } from 'react';
import { SLA_TARGET_WORDS, type SlaTargetView, type TicketSla } from '#contract/sla';
import { onLive } from '../../lib/live';
import { useTicketsSlaQuery } from './api';

/** "1 h 20 m", "35 m", "40 s": the time left or past, as the chips say it. */
export function spanText(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} m` : ''}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ''}`;
}

/**
 * The time on the server's clock, ticking every second: due times are the server's, so the offset
 * seen at the last answer is kept and the chips turn from due to breached without a reload.
 */
export function useServerNow(serverNow: string | undefined): number {
  const [offset, setOffset] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (serverNow) setOffset(Date.parse(serverNow) - Date.now());
  }, [serverNow]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now + offset;
}

export type ChipState = 'due' | 'soon' | 'breached' | 'paused' | 'met';

/** A target as it stands at `now` (the client's tick): the server's answer moved forward in time. */
export function targetNow(target: SlaTargetView, now: number): { state: ChipState; text: string } {
  const words = SLA_TARGET_WORDS[target.target];
  if (target.state === 'met') return { state: 'met', text: `${words} met` };
  if (target.state === 'paused') return { state: 'paused', text: `${words} paused, ${spanText(target.remainingMs ?? 0)} left` };
  if (target.completedAt !== null) return { state: 'breached', text: `${words} breached` };
  const due = target.dueAt ? Date.parse(target.dueAt) : null;
  if (due === null) return { state: 'due', text: `${words} running` };
  if (due <= now) return { state: 'breached', text: `${words} breached ${spanText(now - due)} ago` };
  return { state: due - now <= 3600_000 ? 'soon' : 'due', text: `${words} due in ${spanText(due - now)}` };
}

/** The target a ticket's chip shows: the first due of the running ones, else a breach waiting, else nothing. */
export function urgentTarget(sla: TicketSla): SlaTargetView | null {
  const open = sla.targets.filter((target) => target.completedAt === null);
  const running = open.filter((target) => target.state === 'running' || (target.state === 'breached' && target.dueAt !== null));
  running.sort((a, b) => Date.parse(a.dueAt!) - Date.parse(b.dueAt!));
  return running[0] ?? open.find((target) => target.state === 'breached') ?? open.find((target) => target.state === 'paused') ?? null;
}

const CHIP_CLASS: Record<ChipState, string> = {
  due: 'badge-outline',
  soon: 'badge-warning',
  breached: 'badge-destructive',
  paused: 'badge-secondary',
  met: 'badge-success',
};

export function SlaChip({ sla, now }: { sla: TicketSla | undefined; now: number }) {
  const target = sla ? urgentTarget(sla) : null;
  if (!target) return <span className="muted">–</span>;
  const { state, text } = targetNow(target, now);
  return (
    <span className={`badge sla-chip ${CHIP_CLASS[state]}`} data-sla={state} title={`${sla!.policyName} (version ${sla!.version})`}>
      {text}
    </span>
  );
}

/**
 * The SLA of the tickets a list shows, one request for the whole list, fetched again when one of
 * them changes live (a reply, a status) or a warning comes; the chips tick on the client between.
 */
export function useSlaOf(tickets: Array<{ _id: string; updatedAt: string; status: string }>) {
  const version = tickets.map((ticket) => `${ticket._id}:${ticket.updatedAt}:${ticket.status}`).join(',');
  const ids = tickets.map((ticket) => ticket._id);
  const { data, refetch } = useTicketsSlaQuery({ ids, version }, { skip: ids.length === 0 });
  useEffect(() => onLive('sla_warning', () => void refetch()), [refetch]);
  const now = useServerNow(data?.now);
  return { byTicket: new Map((data?.tickets ?? []).map((entry) => [entry.ticketId, entry.sla])), now };
}
