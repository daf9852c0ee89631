import { useMemo, useState } from 'react';
import { Icon } from '../../components/icons';
import { plural } from '../../lib/format';
import type { CannedMessage } from '../../entities/ticket/types';

/** docs/product.md section 9: the tooltip previews 100 characters. */
const PREVIEW_LENGTH = 100;

/** Most used first, then by shortcode. */
const byUsage = (a: CannedMessage, b: CannedMessage) => b.usageCount - a.usageCount || a.shortcode.localeCompare(b.shortcode);

function matchesSearch(canned: CannedMessage, search: string): boolean {
  const needle = search.trim().toLowerCase();
  return !needle || [canned.shortcode, canned.title, canned.content].some((text) => text.toLowerCase().includes(needle));
}

const preview = (content: string) => (content.length > PREVIEW_LENGTH ? `${content.slice(0, PREVIEW_LENGTH)}...` : content);

/** The collapsible Quick Messages panel (staff): search, preview on hover, insert on click. */
export function QuickMessages({
  messages,
  loading,
  failed,
  onChoose,
}: {
  messages: CannedMessage[];
  loading: boolean;
  failed: boolean;
  onChoose: (canned: CannedMessage) => void;
}) {
  const [open, setOpen] = useState(true);
  const [search, setSearch] = useState('');
  const shown = useMemo(() => messages.filter((canned) => matchesSearch(canned, search)).sort(byUsage), [messages, search]);
  return (
    <section className={`card quick-messages ${open ? '' : 'quick-collapsed'}`} aria-label="Quick Messages">
      <header className="card-header">
        <h2>Quick Messages</h2>
        <button
          type="button"
          className="icon-button"
          aria-expanded={open}
          aria-label={open ? 'Collapse quick messages' : 'Expand quick messages'}
          onClick={() => setOpen((value) => !value)}
        >
          <Icon name={open ? 'chevronRight' : 'chevronLeft'} />
        </button>
      </header>
      {open && (
        <>
          <input
            type="search"
            className="quick-search"
            placeholder="Search quick messages..."
            aria-label="Search quick messages"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          {loading && <p className="muted">Loading canned messages...</p>}
          {failed && <p className="field-error">Failed to load data</p>}
          {!loading && !failed && shown.length === 0 && (
            <p className="muted">{messages.length === 0 ? 'No canned messages yet.' : 'No messages match your search.'}</p>
          )}
          <ul className="quick-list">
            {shown.map((canned) => (
              <li key={canned._id}>
                <button type="button" className="quick-item" title={preview(canned.content)} onClick={() => onChoose(canned)}>
                  <span className="quick-code">#{canned.shortcode}</span>
                  <span className="quick-title">{canned.title}</span>
                  <span className="muted quick-uses">{plural(canned.usageCount, 'use')}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
