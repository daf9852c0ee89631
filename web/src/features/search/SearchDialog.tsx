import { type KeyboardEvent as ReactKeyboardEvent, useCallback, useEffect, useId, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { SearchHit } from '#contract/search';
import { PRIORITIES, TICKET_STATUSES } from '#contract/tickets';
import { isStaff } from '#contract/users';
import { useAppSelector } from '../../app/hooks';
import { Modal } from '../../components/ui';
import { Icon } from '../../components/icons';
import { fullName } from '../../lib/format';
import { selectUser } from '../../entities/session/sessionSlice';
import { useCategoriesQuery } from '../../entities/ticket/api';
import { type SearchFilters, useLazySearchQuery } from './api';
import './search.css';

/** Results follow the typing once it pauses this long; a request for older text is aborted. */
const SEARCH_DEBOUNCE_MS = 200;
const OPEN_SEARCH = 'desk:open-search';

/** Opens the search dialog from anywhere (the sidebar's search button). */
export const openSearch = () => window.dispatchEvent(new Event(OPEN_SEARCH));

const isTyping = (target: EventTarget | null) => {
  const element = target as HTMLElement | null;
  return !!element && (element.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName));
};

/** Text with the server's `[start, end)` highlights as <mark>: the text is never read as markup. */
export function Highlighted({ text, highlights }: { text: string; highlights: Array<[number, number]> }) {
  const parts: Array<{ text: string; marked: boolean }> = [];
  let at = 0;
  for (const [start, end] of [...highlights].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > text.length) continue;
    if (start > at) parts.push({ text: text.slice(at, start), marked: false });
    parts.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) parts.push({ text: text.slice(at), marked: false });
  return <>{parts.map((part, index) => (part.marked ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>))}</>;
}

/** Where a hit opens: its ticket, scrolled to the matching message when there is one. */
const hitPath = (hit: SearchHit) =>
  `/tickets/${encodeURIComponent(hit.ticket._id)}${hit.snippet.messageId ? `?message=${encodeURIComponent(hit.snippet.messageId)}` : ''}`;

/** The dialog's filter fields; dates as the browser's date inputs give them (a day in the browser's time zone). */
interface FilterFields {
  status: string;
  priority: string;
  category: string;
  assignee: string;
  createdFrom: string;
  createdTo: string;
  updatedFrom: string;
  updatedTo: string;
}

const NO_FILTERS: FilterFields = { status: '', priority: '', category: '', assignee: '', createdFrom: '', createdTo: '', updatedFrom: '', updatedTo: '' };

/** A picked day's first or last millisecond in the browser's time zone, as the server reads dates (UTC). */
const dayBound = (day: string, end: 'from' | 'to') => (day ? new Date(`${day}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}`).toISOString() : undefined);

const requestFilters = (fields: FilterFields): SearchFilters => ({
  status: (fields.status || undefined) as SearchFilters['status'],
  priority: (fields.priority || undefined) as SearchFilters['priority'],
  category: fields.category || undefined,
  assignee: (fields.assignee || undefined) as SearchFilters['assignee'],
  createdFrom: dayBound(fields.createdFrom, 'from'),
  createdTo: dayBound(fields.createdTo, 'to'),
  updatedFrom: dayBound(fields.updatedFrom, 'from'),
  updatedTo: dayBound(fields.updatedTo, 'to'),
});

const label = (value: string) => value.charAt(0).toUpperCase() + value.slice(1).replace(/_/g, ' ');

/** Status, priority, category, assignee (staff) and the created and updated days a search is narrowed to. */
function FilterPanel({ fields, onChange, staff }: { fields: FilterFields; onChange: (fields: FilterFields) => void; staff: boolean }) {
  const { data } = useCategoriesQuery();
  const id = useId();
  const set = (key: keyof FilterFields) => (event: { target: { value: string } }) => onChange({ ...fields, [key]: event.target.value });
  const select = (key: keyof FilterFields, text: string, options: Array<[string, string]>) => (
    <div className="search-filter">
      <label htmlFor={`${id}-${key}`}>{text}</label>
      <select id={`${id}-${key}`} value={fields[key]} onChange={set(key)}>
        <option value="">Any</option>
        {options.map(([value, name]) => (
          <option key={value} value={value}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
  const date = (key: keyof FilterFields, text: string) => (
    <div className="search-filter">
      <label htmlFor={`${id}-${key}`}>{text}</label>
      <input id={`${id}-${key}`} type="date" value={fields[key]} onChange={set(key)} />
    </div>
  );
  return (
    <div className="search-filters" role="group" aria-label="Search filters">
      {select(
        'status',
        'Status',
        TICKET_STATUSES.map((status) => [status, label(status)]),
      )}
      {select(
        'priority',
        'Priority',
        PRIORITIES.map((priority) => [priority, label(priority)]),
      )}
      {select(
        'category',
        'Category',
        (data?.categories ?? []).map((category) => [category._id, category.name]),
      )}
      {staff &&
        select('assignee', 'Assigned to', [
          ['me', 'Me'],
          ['unassigned', 'Nobody'],
        ])}
      {date('createdFrom', 'Created from')}
      {date('createdTo', 'Created to')}
      {date('updatedFrom', 'Updated from')}
      {date('updatedTo', 'Updated to')}
    </div>
  );
}

function SearchPanel({ onClose }: { onClose: () => void }) {
  const inputId = useId();
  const user = useAppSelector(selectUser);
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [fields, setFields] = useState(NO_FILTERS);
  const [showFilters, setShowFilters] = useState(false);
  const [active, setActive] = useState(0);
  const [search, { data, isFetching, isError, originalArgs }] = useLazySearchQuery();
  const navigate = useNavigate();
  const filters = requestFilters(fields);
  const filtersSet = Object.values(fields).filter(Boolean).length;
  // Other words or filters start again at the first page.
  const searchKey = JSON.stringify({ q: query, ...filters });
  const [paging, setPaging] = useState({ of: searchKey, page: 1 });
  // Adjusted while rendering (React's pattern for state that follows a changed input): coming back to earlier words or filters starts at page 1 too.
  if (paging.of !== searchKey) setPaging({ of: searchKey, page: 1 });
  const page = paging.of === searchKey ? paging.page : 1;
  const argsKey = JSON.stringify({ q: query, page, ...filters });
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (!query) return undefined;
    const request = search(JSON.parse(argsKey) as Parameters<typeof search>[0], true);
    // Typing on (or closing) makes this answer stale: the request is cancelled, not just ignored.
    return () => request.abort();
  }, [query, argsKey, search]);
  useEffect(() => setActive(0), [data]);
  // Only the answer to what is asked now: never an older page, words or filters.
  const answered = !!query && JSON.stringify(originalArgs) === argsKey;
  const hits = answered ? (data?.hits ?? []) : [];
  const open = (hit: SearchHit) => {
    onClose();
    void navigate(hitPath(hit));
  };
  const onKeyDown = (event: ReactKeyboardEvent) => {
    if (event.key === 'ArrowDown') setActive((index) => Math.min(index + 1, hits.length - 1));
    else if (event.key === 'ArrowUp') setActive((index) => Math.max(index - 1, 0));
    else if (event.key === 'Enter' && hits[active]) open(hits[active]);
    else return;
    event.preventDefault();
  };
  const pages = answered && data ? data.pagination.pages : 0;
  return (
    <div className="search-panel">
      <div className="search-bar">
        <label htmlFor={inputId} className="visually-hidden">
          Search tickets and messages
        </label>
        <input
          id={inputId}
          className="search-input"
          type="search"
          value={text}
          maxLength={200}
          placeholder='Words, "a phrase", -exclude, #1042'
          autoComplete="off"
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="button"
          className="button button-secondary button-small search-filters-toggle"
          aria-expanded={showFilters}
          onClick={() => setShowFilters((shown) => !shown)}
        >
          {filtersSet > 0 ? `Filters (${filtersSet})` : 'Filters'}
        </button>
      </div>
      {showFilters && (
        <>
          <FilterPanel fields={fields} onChange={setFields} staff={!!user && isStaff(user.role)} />
          {filtersSet > 0 && (
            <button type="button" className="button button-ghost button-small search-filters-clear" onClick={() => setFields(NO_FILTERS)}>
              Clear filters
            </button>
          )}
        </>
      )}
      {query && isError && <p className="search-status">Search failed. Try again.</p>}
      {query && !isError && !isFetching && answered && hits.length === 0 && <p className="search-status">No matches.</p>}
      {hits.length > 0 && (
        <ul className="search-results" aria-label="Search results">
          {hits.map((hit, index) => (
            <li key={hit.ticket._id} className={`search-hit ${index === active ? 'search-hit-active' : ''}`}>
              <button type="button" onClick={() => open(hit)} onMouseEnter={() => setActive(index)}>
                <span className="search-hit-title">
                  #{hit.ticket.ticketId} {hit.ticket.title}
                </span>
                <span className="search-hit-meta">
                  {' '}
                  · {hit.ticket.status.replace('_', ' ')} · {fullName(hit.ticket.customer)}
                </span>
                <div className="search-snippet">
                  <Highlighted text={hit.snippet.text} highlights={hit.snippet.highlights} />
                </div>
              </button>
            </li>
          ))}
        </ul>
      )}
      {data && hits.length > 0 && pages > 1 && (
        <nav className="search-pager" aria-label="Search result pages">
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={page <= 1 || isFetching}
            onClick={() => setPaging({ of: searchKey, page: page - 1 })}
          >
            Previous
          </button>
          <span className="search-status">
            Page {page} of {pages} · {data.pagination.total} matches
          </span>
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={page >= pages || isFetching}
            onClick={() => setPaging({ of: searchKey, page: page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

/**
 * The desk-wide search: `/` (outside a text field, on a screen without a search box of its own) or Ctrl+K / ⌘K opens it from any screen, as does
 * the sidebar's search button. The server decides what the caller may find (docs/search.md).
 */
export function SearchDialog() {
  const [isOpen, setOpen] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const ctrlK = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k';
      const slash = event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target);
      if (event.defaultPrevented || !(ctrlK || slash)) return;
      event.preventDefault();
      show();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_SEARCH, show);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_SEARCH, show);
    };
  }, [show]);
  useFoundMessage();
  if (!isOpen) return null;
  return (
    <Modal title="Search" onClose={() => setOpen(false)} wide>
      <SearchPanel onClose={() => setOpen(false)} />
    </Modal>
  );
}

/** The sidebar's entry: opens the search dialog. */
export function SearchButton({ collapsed }: { collapsed: boolean }) {
  return (
    <button
      type="button"
      className="sidebar-trigger search-trigger"
      onClick={openSearch}
      aria-label={collapsed ? 'Search' : undefined}
      title="Search (/ or Ctrl+K)"
    >
      <Icon name="search" />
      {!collapsed && (
        <>
          <span>Search</span>
          <kbd>Ctrl K</kbd>
        </>
      )}
    </button>
  );
}

/**
 * A ticket opened from a search hit (`?message=<id>`): once its conversation shows that message,
 * it is scrolled into view and marked until another page or message is opened.
 */
function useFoundMessage() {
  const { pathname, search } = useLocation();
  const messageId = pathname.startsWith('/tickets/') ? new URLSearchParams(search).get('message') : null;
  useEffect(() => {
    if (!messageId) return undefined;
    let marked: Element | null = null;
    let tries = 0;
    const timer = setInterval(() => {
      const element = document.querySelector(`[data-message-id="${CSS.escape(messageId)}"]`);
      tries += 1;
      if (!element) {
        if (tries > 100) clearInterval(timer);
        return;
      }
      clearInterval(timer);
      marked = element;
      element.classList.add('message-found');
      element.scrollIntoView({ block: 'center' });
    }, 100);
    return () => {
      clearInterval(timer);
      marked?.classList.remove('message-found');
    };
  }, [messageId]);
}
