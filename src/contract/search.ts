import { z } from 'zod';
import { pageQuery } from './paging';
import { Pagination } from './responses';
import { PRIORITIES, TICKET_STATUSES, commaList } from './tickets';

/**
 * Full-text search (docs/search.md). A query is cut at MAX_QUERY_LENGTH characters and reads at
 * most MAX_QUERY_WORDS words (phrase words and excluded words included); the rest is ignored, so a
 * pasted page costs the same as a short query.
 */
export const MAX_QUERY_LENGTH = 200;
export const MAX_QUERY_WORDS = 8;
/** Results are at most this many per page (the list's own limit of 1000 would be pointless here). */
const MAX_SEARCH_PAGE = 50;

const DAY_MS = 86_400_000;

/** A bound of a date range: a date and time as given, or a date (UTC) whose whole day counts: its start for `from`, its end for `to`. */
const day = (label: string, end: 'from' | 'to') =>
  z.iso
    .datetime({ offset: true, message: `${label} must be an ISO-8601 date and time, for example 2026-11-21T09:30:00Z` })
    .transform((text) => new Date(text).toISOString())
    .or(
      z.iso
        .date({ message: `${label} must be an ISO-8601 date, for example 2026-11-21` })
        .transform((text) => new Date(Date.parse(text) + (end === 'to' ? DAY_MS - 1 : 0)).toISOString()),
    );

export const searchQuery = z
  .object({
    /** Longer text is not refused but cut (the answer's `query.truncated` says so). */
    q: z.string({ message: 'q (the search text) is required' }).trim().min(1, 'q (the search text) is required'),
    status: commaList(TICKET_STATUSES, 'Status').optional(),
    priority: commaList(PRIORITIES, 'Priority').optional(),
    category: z.string().min(1).max(100).optional(),
    /** An agent's id, `me` or `unassigned`. */
    assignee: z.string().min(1).max(100).optional(),
    createdFrom: day('createdFrom', 'from').optional(),
    createdTo: day('createdTo', 'to').optional(),
    updatedFrom: day('updatedFrom', 'from').optional(),
    updatedTo: day('updatedTo', 'to').optional(),
    page: pageQuery(20).page,
    limit: pageQuery(20).limit.pipe(z.number().max(MAX_SEARCH_PAGE, `limit must be at most ${MAX_SEARCH_PAGE}`)),
  })
  .strict();
export type SearchQuery = z.output<typeof searchQuery>;

/** Where in the snippet's text the query's words are: `[start, end)` offsets in UTF-16 code units, never markup. */
const Highlight = z.tuple([z.int(), z.int()]);

export const SearchSnippet = z
  .strictObject({
    /** `message` (then `messageId` and `seq` say which), or the ticket field the words were found in. */
    source: z.enum(['message', 'title', 'description', 'field', 'customer', 'number']),
    messageId: z.string().nullable(),
    seq: z.int().nullable(),
    text: z.string(),
    highlights: z.array(Highlight),
  })
  .meta({ id: 'SearchSnippet' });

export const SearchHit = z
  .strictObject({
    ticket: z.strictObject({
      _id: z.string(),
      ticketId: z.int(),
      title: z.string(),
      status: z.enum(TICKET_STATUSES),
      priority: z.enum(PRIORITIES),
      customer: z.strictObject({ _id: z.string(), username: z.string(), firstName: z.string(), lastName: z.string() }),
      updatedAt: z.string(),
    }),
    snippet: SearchSnippet,
  })
  .meta({ id: 'SearchHit' });

export const SearchResults = z
  .strictObject({
    hits: z.array(SearchHit),
    pagination: Pagination,
    /** What the server read of `q`: the words, phrases and exclusions it searched for (after the cut). */
    query: z.strictObject({ words: z.array(z.string()), phrases: z.array(z.array(z.string())), excluded: z.array(z.string()), truncated: z.boolean() }),
  })
  .meta({ id: 'SearchResults' });

export type SearchSnippet = z.infer<typeof SearchSnippet>;
export type SearchHit = z.infer<typeof SearchHit>;
export type SearchResults = z.infer<typeof SearchResults>;
