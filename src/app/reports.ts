import { isCleanText } from '#contract/text';
import type { ReadStore } from '../platform/readstore/port';
import { findCategory, findPerson } from '../projections/directory';
import { TEAMS, type TeamView } from '../projections/teams';

/** Percent with one decimal; null for nothing to count. */
export const percent = (part: number, whole: number) => (whole === 0 ? null : Math.round((1000 * part) / whole) / 10);

export const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/**
 * Whether a spreadsheet could read the cell as a formula or show it reordered: it starts with = + - @,
 * a tab or carriage return, or a control or bidi character (NUL, U+202E…) that some strip or hide
 * before the formula behind them. Such text gets a leading apostrophe.
 */
const needsDefusing = (text: string) => {
  const first = text.codePointAt(0);
  return first !== undefined && (/^[=+\-@\t\r]/.test(text) || !isCleanText(String.fromCodePoint(first), { multiLine: false }));
};

/** A CSV cell: quoted, and formula-looking text defused for spreadsheets. */
export const csvCell = (value: string | number | null) => {
  const text = value === null ? '' : String(value);
  return `"${(needsDefusing(text) ? `'${text}` : text).replace(/"/g, '""')}"`;
};

function groupBy<Row>(rows: Row[], key: (row: Row) => string | null): Map<string | null, Row[]> {
  const groups = new Map<string | null, Row[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}

/** How reports name the tickets in no team (docs/teams.md). */
export const NO_TEAM_NAME = 'No team';

/** Team names by id, archived teams too: a report names the team a ticket had. */
export async function teamNames(store: ReadStore): Promise<Map<string, string>> {
  return new Map((await store.collection<TeamView>(TEAMS).find({})).map((team) => [team._id, team.name]));
}

/** A dashboard report's rows grouped by category, by agent and by team (names joined at read time), each list by name. */
export async function reportGroups<Row extends { categoryId: string; agentId: string | null; teamId: string | null }, Group extends { name: string }>(
  store: ReadStore,
  rows: Row[],
  group: (id: string | null, name: string, members: Row[]) => Group,
): Promise<{ byCategory: Group[]; byAgent: Group[]; byTeam: Group[] }> {
  const byCategory: Group[] = [];
  for (const [categoryId, members] of groupBy(rows, (row) => row.categoryId))
    byCategory.push(group(categoryId, (await findCategory(store, categoryId!)).name, members));
  const byAgent: Group[] = [];
  for (const [agentId, members] of groupBy(rows, (row) => row.agentId))
    byAgent.push(group(agentId, agentId ? fullName(await findPerson(store, agentId)) : 'Unassigned', members));
  const teams = await teamNames(store);
  const byTeam: Group[] = [];
  for (const [teamId, members] of groupBy(rows, (row) => row.teamId))
    byTeam.push(group(teamId, teamId ? (teams.get(teamId) ?? 'Unknown team') : NO_TEAM_NAME, members));
  const byName = (a: Group, b: Group) => a.name.localeCompare(b.name);
  return { byCategory: byCategory.sort(byName), byAgent: byAgent.sort(byName), byTeam: byTeam.sort(byName) };
}
