import { z } from 'zod';
import { OPEN_STATUSES, listTicketsQuery } from './tickets';
import { singleLine } from './text';

/** Saved views of Live Tickets (docs/views.md): a name, the list's filters, a sort and the table's columns, shared by a scope. */

export const VIEW_SCOPES = ['personal', 'team', 'everyone'] as const;
export type ViewScope = (typeof VIEW_SCOPES)[number];

/** The filters of `GET /tickets` a view keeps, as its query string has them (so a view opens as an address). */
export const VIEW_FILTER_KEYS = ['status', 'priority', 'assigned', 'waiting', 'category', 'tag', 'team', 'customer', 'q', 'satisfaction', 'sla'] as const;
type ViewFilterKey = (typeof VIEW_FILTER_KEYS)[number];
export type ViewFilters = Partial<Record<ViewFilterKey, string>>;

/** Live Tickets' own orders (the list takes a few more). */
export const VIEW_SORTS = ['latest', 'priority', 'status', 'waiting', 'due'] as const;
export type ViewSort = (typeof VIEW_SORTS)[number];

/** The Live Tickets table's columns a view may show; the title is always shown. */
export const VIEW_COLUMNS = ['number', 'priority', 'status', 'customer', 'assignee', 'waiting', 'sla', 'rating'] as const;
export type ViewColumn = (typeof VIEW_COLUMNS)[number];

/** How many views one scope holds: one person's, one team's, everyone's. */
export const VIEWS_PER_SCOPE = 50;

/**
 * The ten views every member of staff has (shared with everyone, shown first, in this order). They
 * are not stored: they cannot be renamed, changed or deleted, and their names are taken in the
 * everyone scope.
 */
const open = OPEN_STATUSES.join(',');
export const DEFAULT_VIEWS = [
  { key: 'all', label: 'All', filters: {} },
  // One-click views of what needs me (issue 41): resolved and closed tickets stay out of them.
  { key: 'waiting', label: 'Mine, waiting on us', filters: { assigned: 'me', waiting: 'true', status: open } },
  { key: 'unassigned', label: 'Unassigned', filters: { assigned: 'unassigned', status: open } },
  { key: 'mine', label: 'My Tickets', filters: { assigned: 'me' } },
  // The sidebar's 'View All Open' lands here: open means open, in progress or pending customer (docs/product.md section 4).
  { key: 'open', label: 'Open', filters: { status: open } },
  { key: 'in_progress', label: 'In Progress', filters: { status: 'in_progress' } },
  { key: 'awaiting_rating', label: 'Awaiting Rating', filters: { satisfaction: 'awaiting' } },
  { key: 'low_rating', label: 'Rated 1–2', filters: { satisfaction: 'low' } },
  // docs/sla.md: a target breached now, or one due within the hour.
  { key: 'breached', label: 'Breached', filters: { sla: 'breached' } },
  { key: 'due_soon', label: 'Due Within 1 h', filters: { sla: 'due_soon' } },
] as const satisfies ReadonlyArray<{ key: string; label: string; filters: ViewFilters }>;
export type DefaultViewKey = (typeof DEFAULT_VIEWS)[number]['key'];

/** The list's own filters, to check a view's against: a view takes exactly what the list takes. */
export const viewListFilters = listTicketsQuery.omit({ sort: true, page: true, limit: true }).strict();

const filters = z
  .partialRecord(z.enum(VIEW_FILTER_KEYS), z.string({ message: 'Each filter is text' }).trim().min(1, 'A filter may not be empty').max(200), {
    message: 'Filters must be an object of list filters',
  })
  .superRefine((value, context) => {
    const parsed = viewListFilters.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });

const name = singleLine(z.string({ message: 'Name is required' }).trim(), 'Name')
  .min(1, 'Name is required')
  .max(60, 'Name must be at most 60 characters');
const scope = z.enum(VIEW_SCOPES, { message: 'Scope must be personal, team or everyone' });
const teamId = z.string({ message: 'teamId must be a team id' }).min(1, 'teamId must be a team id').max(100);
const sort = z.enum(VIEW_SORTS, { message: `Sort must be one of ${VIEW_SORTS.join(', ')}` });
const columns = z
  .array(z.enum(VIEW_COLUMNS, { message: `Each column must be one of ${VIEW_COLUMNS.join(', ')}` }), { message: 'Columns must be a list' })
  .refine((list) => new Set(list).size === list.length, 'Each column may be listed once');

/** A team view names its team; no other scope does. */
const teamFitsScope = (view: { scope?: ViewScope; teamId?: string | null }) => (view.scope === 'team') === (typeof view.teamId === 'string');
const TEAM_FITS = { message: 'A team view needs teamId, and only a team view has one', path: ['teamId'] };

export const createViewSchema = z
  .object({
    name,
    scope: scope.default('personal'),
    teamId: teamId.optional(),
    filters: filters.default({}),
    sort: sort.default('latest'),
    columns: columns.default([...VIEW_COLUMNS]),
  })
  .strict()
  .refine(teamFitsScope, TEAM_FITS);

/** Moving a view to another scope sends the scope (and teamId for a team, null otherwise). */
export const updateViewSchema = z
  .object({ name, scope, teamId: teamId.nullable(), filters, sort, columns })
  .partial()
  .strict()
  .refine((view) => view.scope === undefined || teamFitsScope({ scope: view.scope, teamId: view.teamId ?? null }), TEAM_FITS)
  .refine((view) => view.scope !== undefined || view.teamId === undefined, { message: 'Send scope with teamId', path: ['scope'] });

export type ViewInput = z.output<typeof createViewSchema>;
export type ViewChanges = z.output<typeof updateViewSchema>;

/** A view's count as the live channel pushes it (`view_counts`): the tickets it matches for the viewer now. */
export interface ViewCounts {
  counts: Record<string, number>;
}
