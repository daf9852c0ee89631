import { ForbiddenError } from '#contract/errors';
import type { BulkFilter } from '#contract/bulk';
import { OPEN_STATUSES, isOpenStatus, tagTermsOf } from '#contract/tickets';
import { isStaff } from '#contract/users';
import { searchIsCurrent, matchingTickets as ticketsMatchingText } from '../../app/search/service';
import type { AppDeps } from '../../app/deps';
import type { Filter } from '../../platform/readstore/port';
import { ticketIdsBySatisfaction } from '../../projections/satisfaction';
import { parseQuery } from '../../projections/searchText';
import { ticketIdsBySla } from '../../projections/sla';
import { teamIdsOf } from '../../projections/teams';
import type { AuthUser } from '../http/auth';
import { seesNotes } from './views';

/** The filter of the ticket list (`GET /tickets`): also what "all matching" takes in a bulk change (docs/bulk.md). */
export async function listFilter(deps: AppDeps, query: BulkFilter & { sort?: string }, user: Pick<AuthUser, 'id' | 'role' | 'token'>): Promise<Filter> {
  const filter: Filter = {};
  if (user.role === 'customer') filter['customer._id'] = user.id;
  else if (query.customer) filter['customer._id'] = query.customer;
  if (query.status) filter.status = { $in: query.status };
  if (query.priority) filter.priority = { $in: query.priority };
  if (query.category) filter['category._id'] = query.category;
  // Teams share staff's work (docs/teams.md): a customer asking for them is told so, not shown an unfiltered list.
  const terms = query.q ? tagTermsOf(query.q) : { tags: [], words: '' };
  const tags = [...new Set([...(query.tag ? [query.tag] : []), ...terms.tags])];
  if ((query.team || tags.length > 0) && !isStaff(user.role)) throw new ForbiddenError('Only staff can filter by team or tag');
  if (tags.length > 0) filter.tags = tags.length === 1 ? tags[0] : { $all: tags };
  if (query.team) filter['team._id'] = query.team === 'mine' ? { $in: await teamIdsOf(deps.readStore, user.id) } : query.team;
  if (query.assigned === 'me') filter['assignedAgent._id'] = user.id;
  // On the agent's id, which the tickets' indexes start with: null when nobody is assigned.
  if (query.assigned === 'unassigned') filter['assignedAgent._id'] = null;
  if (query.assigned === 'assigned') filter['assignedAgent._id'] = { $ne: null };
  if (query.waiting !== undefined) filter.waitingSince = query.waiting ? { $ne: null } : null;
  // Tickets the words match (the engine of GET /search, docs/search.md) and tickets by their rating: both narrow the list.
  const among: Array<Set<string>> = [];
  if (terms.words) await searchIsCurrent(deps.projections);
  if (terms.words) among.push(await ticketsMatchingText(deps.readStore, { id: user.id, role: user.role, notes: seesNotes(user) }, parseQuery(terms.words)));
  if (query.satisfaction) among.push(new Set(await ticketIdsBySatisfaction(deps.readStore, query.satisfaction, deps.clock())));
  // Service levels are staff's (docs/sla.md): a customer asking for them is told so, not shown an unfiltered list.
  if (!isStaff(user.role) && (query.sla || query.sort === 'due')) throw new ForbiddenError('Only staff can filter or sort by service levels');
  if (query.sla) among.push(new Set(await ticketIdsBySla(deps.readStore, query.sla, deps.clock().getTime())));
  // A breach is work only while someone can still act on it: a resolved, closed or merged ticket keeps its record in the
  // SLA report, not a place in the Breached or Due views (docs/sla.md).
  if (query.sla) filter.status = { $in: (query.status ?? OPEN_STATUSES).filter(isOpenStatus) };
  if (among.length > 0) filter._id = { $in: [...among.reduce((kept, next) => new Set([...kept].filter((id) => next.has(id))))] };
  return filter;
}
