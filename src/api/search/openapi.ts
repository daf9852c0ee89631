import { SearchResults, searchQuery } from '#contract/search';
import type { ApiRegistry } from '../openapi/registry';
import { scopeWithNotes } from '../http/scopes';

export function describeSearch(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/search',
    token: scopeWithNotes('tickets:read'),
    summary: 'Full-text search over tickets and conversations (a customer searches their own)',
    description:
      'Words match as word prefixes, case- and accent-insensitively; `"exact phrase"`, `-word` to exclude, `#1042` or `1042` for a ticket number. `q` is cut at 200 characters and 8 words (see docs/search.md). Hits come ranked by relevance then recency, each with a snippet of the best matching message whose `highlights` are `[start, end)` offsets into `text`. Internal notes are searched for staff only. `tag:refund` (staff) keeps the tickets carrying that tag, several all of them, lowercased (400 for a bad tag, 403 for a customer); with no other word the tagged tickets come newest first, their title as the snippet (docs/teams.md).',
    errors: [403],
    access: 'signed-in',
    query: searchQuery,
    responses: { 200: { description: 'One page of hits', schema: SearchResults } },
  });
}
