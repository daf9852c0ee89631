import { type FormEvent, useId, useState } from 'react';
import { tagSchema } from '#contract/tickets';
import type { Ticket } from '../../entities/ticket/types';
import { useTagSuggestionsQuery } from './api';

/**
 * The ticket's tags (staff, docs/teams.md): each with a remove button, and a field that suggests the tags
 * in use as one types; the server's rule (lowercase, at most 30 characters) is checked before sending.
 */
export function TicketTags({ ticket, onTag }: { ticket: Ticket; onTag: (tag: string, tagged: boolean) => void }) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const listId = useId();
  const suggestions = useTagSuggestionsQuery(typed.trim().toLowerCase(), { skip: typed.trim() === '' }).data?.tags ?? [];
  const add = (event: FormEvent) => {
    event.preventDefault();
    const checked = tagSchema.safeParse(typed);
    if (!checked.success) return setError(checked.error.issues[0]!.message);
    setError(null);
    setTyped('');
    onTag(checked.data, true);
  };
  return (
    <div className="field">
      <span className="field-label" id={`${listId}-label`}>
        Tags
      </span>
      <ul className="tag-list" aria-labelledby={`${listId}-label`}>
        {ticket.tags.map((tag) => (
          <li key={tag} className="badge">
            {tag}{' '}
            <button type="button" className="button-link" aria-label={`Remove tag ${tag}`} onClick={() => onTag(tag, false)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="inline-form" onSubmit={add} noValidate>
        <input
          aria-label="Add tag"
          placeholder="Add tag"
          list={listId}
          value={typed}
          maxLength={30}
          aria-invalid={error ? true : undefined}
          onChange={(e) => setTyped(e.target.value)}
        />
        <datalist id={listId}>
          {suggestions
            .filter((suggestion) => !ticket.tags.includes(suggestion.tag))
            .map((suggestion) => (
              <option key={suggestion.tag} value={suggestion.tag} />
            ))}
        </datalist>
        <button type="submit" className="button button-secondary button-small">
          Add
        </button>
      </form>
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}
