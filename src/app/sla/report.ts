import { SLA_TARGETS, SLA_TARGET_WORDS, type SlaBreach, type SlaGroup, type SlaReport } from '#contract/sla';
import type { ReadStore } from '../../platform/readstore/port';
import { findPerson } from '../../projections/directory';
import { type SlaEpisodeView, slaEpisodesDecidedBetween } from '../../projections/sla';
import { reportGroups, csvCell, fullName, percent } from '../reports';

interface Decided extends SlaEpisodeView {
  met: boolean;
  decidedAt: number;
}

/**
 * The episodes whose outcome fell within [from, to) as seen at `now`: met at their completion in
 * time, breached at their due time (whether answered late or still waiting). Episodes still running
 * in time are not decided yet and count nowhere.
 */
async function decidedBetween(store: ReadStore, from: Date, to: Date, now: Date): Promise<Decided[]> {
  const start = from.getTime();
  const end = Math.min(to.getTime(), now.getTime() + 1);
  const decided: Decided[] = [];
  for (const episode of await slaEpisodesDecidedBetween(store, start, end)) {
    const breachedAt = episode.breachedAt ?? (episode.running && episode.dueAt !== null && episode.dueAt <= now.getTime() ? episode.dueAt : null);
    const decidedAt = breachedAt ?? episode.completedAt;
    if (decidedAt === null || decidedAt < start || decidedAt >= end) continue;
    decided.push({ ...episode, met: breachedAt === null, decidedAt });
  }
  return decided;
}

function group(id: string | null, name: string, rows: Decided[]): SlaGroup {
  return {
    id,
    name,
    targets: SLA_TARGETS.map((target) => {
      const of = rows.filter((row) => row.target === target);
      const met = of.filter((row) => row.met).length;
      return { target, met, breached: of.length - met, attainment: percent(met, of.length) };
    }),
  };
}

/** Attainment per target for the period, by category and by agent, and the episodes that breached. */
export async function slaReport(store: ReadStore, from: Date, to: Date, now: Date): Promise<SlaReport> {
  const rows = await decidedBetween(store, from, to, now);
  const { byCategory, byAgent, byTeam } = await reportGroups(store, rows, group);
  const breaches: SlaBreach[] = [];
  for (const row of rows.filter((candidate) => !candidate.met).sort((a, b) => b.decidedAt - a.decidedAt)) {
    breaches.push({
      ticketId: row.ticketId,
      number: row.number,
      title: row.title,
      target: row.target,
      episode: row.episode,
      dueAt: new Date(row.decidedAt).toISOString(),
      completedAt: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
      agentName: row.agentId ? fullName(await findPerson(store, row.agentId)) : null,
    });
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total: group(null, 'All', rows),
    byCategory,
    byAgent,
    byTeam,
    breaches,
  };
}

/** The attainment table as CSV: one line per group and target. */
export async function slaCsv(store: ReadStore, from: Date, to: Date, now: Date): Promise<string> {
  const report = await slaReport(store, from, to, now);
  const lines = [['group', 'name', 'target', 'met', 'breached', 'attainment %'].map(csvCell).join(',')];
  const rows: Array<[string, SlaGroup]> = [
    ['total', report.total],
    ...report.byCategory.map((g) => ['category', g] as [string, SlaGroup]),
    ...report.byAgent.map((g) => ['agent', g] as [string, SlaGroup]),
    ...report.byTeam.map((g) => ['team', g] as [string, SlaGroup]),
  ];
  for (const [kind, found] of rows)
    for (const target of found.targets)
      lines.push([kind, found.name, SLA_TARGET_WORDS[target.target], target.met, target.breached, target.attainment].map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
