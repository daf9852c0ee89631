import { type KeyboardEvent as ReactKeyboardEvent, useCallback, useEffect, useId, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { SearchHit } from '#contract/search';
import { Modal } from '../../components/ui';
import { Icon } from '../../components/icons';
import { fullName } from '../../lib/format';
import { useLazySearchQuery } from './api';
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

function SearchPanel({ onClose }: { onClose: () => void }) {
  const inputId = useId();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [search, { data, isFetching, isError, originalArgs }] = useLazySearchQuery();
  const navigate = useNavigate();
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (!query) return undefined;
    const request = search({ q: query }, true);
    // Typing on (or closing) makes this answer stale: the request is cancelled, not just ignored.
    return () => request.abort();
  }, [query, search]);
  useEffect(() => setActive(0), [data]);
  const hits = query && originalArgs?.q === query ? (data?.hits ?? []) : [];
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
  return (
    <div className="search-panel">
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
      {query && isError && <p className="search-status">Search failed. Try again.</p>}
      {query && !isError && !isFetching && originalArgs?.q === query && hits.length === 0 && <p className="search-status">No matches.</p>}
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
      {data && hits.length > 0 && data.pagination.total > hits.length && (
        <p className="search-status">
          {hits.length} of {data.pagination.total} matches: add words to narrow them.
        </p>
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
    <button type="button" className="search-trigger" onClick={openSearch} aria-label={collapsed ? 'Search' : undefined} title="Search (/ or Ctrl+K)">
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
