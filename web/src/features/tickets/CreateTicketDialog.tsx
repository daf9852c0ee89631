import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ValidationError } from '#contract/errors';
import { answerCustomFields, answerOf } from '#contract/customFields';
import { isBlankText } from '#contract/text';
import { DESCRIPTION_MAX, PRIORITIES, TITLE_MAX } from '#contract/tickets';
import { errorMessage } from '../../app/api';
import { Banner, CountedLabel, Modal } from '../../components/ui';
import { useCategoriesQuery } from '../../entities/ticket/api';
import { usePublicSettingsQuery } from '../../entities/desk/api';
import { useCreateTicketMutation, useTicketsQuery } from './api';
import { OPEN_FILTER, statusLabel } from './display';
import type { Category, ExistingTicket, Ticket } from '../../entities/ticket/types';

export interface TicketDraft {
  title: string;
  description: string;
  category: string;
  priority: string;
  customFieldValues: Record<string, string>;
}

/** The custom fields' own rules (the server's checker), as messages per field. */
function customFieldErrors(category: Category | undefined, answers: Record<string, string>): Record<string, string> {
  if (!category) return {};
  const given = Object.fromEntries(Object.entries(answers).filter(([name]) => category.customFields.some((field) => field.fieldName === name)));
  try {
    answerCustomFields(category.customFields, given);
    return {};
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return Object.fromEntries(error.details.map((detail) => [detail.path.replace('customFieldValues.', ''), detail.message]));
  }
}

function ExistingTicketNotice({ ticket }: { ticket: ExistingTicket }) {
  return (
    <div className="banner banner-warning" role="alert">
      <strong>You already have an open ticket</strong>
      <p>
        #{ticket.ticketId} {ticket.title} ({statusLabel(ticket.status)})
      </p>
      <p>Please resolve your existing ticket before creating a new one</p>
    </div>
  );
}

/** A customer held by the one-open-ticket rule gets the way to that ticket, not a form they cannot send (issue 25). */
function BlockedByOpenTicket({ ticket, onCancel }: { ticket: ExistingTicket; onCancel: () => void }) {
  return (
    <div className="form">
      <ExistingTicketNotice ticket={ticket} />
      <div className="form-actions">
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <Link to={`/tickets/${ticket._id}`} className="button button-primary" onClick={onCancel}>
          Go to your open ticket
        </Link>
      </div>
    </div>
  );
}

/**
 * The create-ticket form of docs/product.md sections 2 and 5: counters on title and description, the first
 * category chosen once categories load, priority medium, the chosen category's custom fields, and
 * submit disabled while sending, while title or description is blank or without a category; while an
 * open ticket exists the form gives way to a link to that ticket.
 */
export function TicketForm({
  categories,
  categoriesError,
  supportEmail = '',
  existing,
  submitting,
  error,
  onSubmit,
  onCancel,
}: {
  categories: Category[] | undefined;
  categoriesError: boolean;
  /** Whom a customer asks when the desk has no category yet (the Support Email setting); blank when unset. */
  supportEmail?: string;
  existing: ExistingTicket | null;
  submitting: boolean;
  error: string | null;
  onSubmit: (draft: TicketDraft) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<TicketDraft>({ title: '', description: '', category: '', priority: 'medium', customFieldValues: {} });
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    const first = categories?.[0];
    if (first && !draft.category) setDraft((current) => ({ ...current, category: first._id }));
  }, [categories, draft.category]);
  const category = categories?.find((candidate) => candidate._id === draft.category);
  const fieldErrors = useMemo(() => customFieldErrors(category, draft.customFieldValues), [category, draft.customFieldValues]);
  const blocked = submitting || isBlankText(draft.title) || isBlankText(draft.description) || !draft.category;
  const set = (patch: Partial<TicketDraft>) => setDraft((current) => ({ ...current, ...patch }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (blocked || Object.keys(fieldErrors).length > 0) return;
    const answers = Object.fromEntries(
      Object.entries(draft.customFieldValues).filter(
        ([name, value]) => !isBlankText(value) && category?.customFields.some((field) => field.fieldName === name),
      ),
    );
    onSubmit({ ...draft, title: draft.title.trim(), description: draft.description.trim(), customFieldValues: answers });
  };

  if (existing) return <BlockedByOpenTicket ticket={existing} onCancel={onCancel} />;
  return (
    <form onSubmit={submit} className="form" noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      {categoriesError && <Banner kind="error">Failed to load categories</Banner>}
      {categories?.length === 0 && (
        // A new desk before its admin added a category (issue 50): say why Create stays disabled, and whom to ask.
        <Banner kind="info">{noCategoryText(supportEmail)}</Banner>
      )}
      <div className="field">
        <CountedLabel htmlFor="ticket-title" label="Title" length={draft.title.length} max={TITLE_MAX} />
        <input
          id="ticket-title"
          required
          maxLength={TITLE_MAX}
          value={draft.title}
          onChange={(e) => set({ title: e.target.value })}
          placeholder="Brief summary of the issue"
        />
      </div>
      <div className="form-row">
        <div className="field">
          <label htmlFor="ticket-category">Category</label>
          <select id="ticket-category" required value={draft.category} onChange={(e) => set({ category: e.target.value })}>
            {!categories?.length && <option value="">No categories available</option>}
            {categories?.map((option) => (
              <option key={option._id} value={option._id}>
                {option.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ticket-priority">Priority</label>
          <select id="ticket-priority" value={draft.priority} onChange={(e) => set({ priority: e.target.value })}>
            {PRIORITIES.map((priority) => (
              <option key={priority} value={priority}>
                {priority.charAt(0).toUpperCase() + priority.slice(1)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="field">
        <CountedLabel htmlFor="ticket-description" label="Description" length={draft.description.length} max={DESCRIPTION_MAX} />
        <textarea
          id="ticket-description"
          rows={5}
          required
          maxLength={DESCRIPTION_MAX}
          value={draft.description}
          onChange={(e) => set({ description: e.target.value })}
          placeholder="Describe the problem in detail"
        />
      </div>
      {category?.customFields.length ? (
        <fieldset className="custom-fields">
          <legend>{category.name} details</legend>
          {[...category.customFields]
            .sort((a, b) => a.order - b.order)
            .map((field) => {
              const id = `custom-${field.fieldName}`;
              const value = answerOf(draft.customFieldValues, field.fieldName) ?? '';
              const onChange = (text: string) => set({ customFieldValues: { ...draft.customFieldValues, [field.fieldName]: text } });
              const message = touched ? answerOf(fieldErrors, field.fieldName) : undefined;
              const common = { id, value, placeholder: field.placeholder, required: field.required, 'aria-invalid': message ? true : undefined };
              return (
                <div className="field" key={field.fieldName}>
                  <label htmlFor={id}>
                    {field.prompt}
                    {field.required && <span aria-hidden="true"> *</span>}
                  </label>
                  {field.fieldType === 'textarea' ? (
                    <textarea rows={3} {...common} onChange={(e) => onChange(e.target.value)} />
                  ) : (
                    <input type={field.fieldType === 'number' ? 'number' : 'text'} {...common} onChange={(e) => onChange(e.target.value)} />
                  )}
                  {message && <span className="field-error">{message}</span>}
                </div>
              );
            })}
        </fieldset>
      ) : null}
      <div className="form-actions">
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={blocked}>
          {submitting ? 'Creating...' : 'Create Ticket'}
        </button>
      </div>
    </form>
  );
}

const noCategoryText = (supportEmail: string) =>
  `Tickets can't be opened yet: this desk has no categories set up. ${supportEmail ? `Please write to ${supportEmail}` : 'Please contact the support team'} and they will add one.`;

/** The dialog: loads categories and (for customers) the one-open-ticket pre-check, then opens the new ticket. */
export function CreateTicketDialog({ onClose, onCreated }: { onClose: () => void; onCreated?: (ticket: Ticket) => void }) {
  const categories = useCategoriesQuery();
  const desk = usePublicSettingsQuery();
  const openTickets = useTicketsQuery({ status: OPEN_FILTER, limit: 1, sort: 'latest' });
  const [create, { isLoading }] = useCreateTicketMutation();
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ExistingTicket | null>(null);
  const navigate = useNavigate();
  const precheck = openTickets.data?.tickets[0] ?? null;
  const existing = conflict ?? (precheck ? { _id: precheck._id, ticketId: precheck.ticketId, title: precheck.title, status: precheck.status } : null);

  const submit = async (draft: TicketDraft) => {
    setError(null);
    try {
      const { ticket } = await create(draft).unwrap();
      onCreated?.(ticket);
      onClose();
      await navigate(`/tickets/${ticket._id}`);
    } catch (failure) {
      const found = (failure as { data?: { existingTicket?: ExistingTicket } }).data?.existingTicket;
      if (found) setConflict(found);
      else setError(errorMessage(failure, 'Failed to create ticket'));
    }
  };

  return (
    <Modal title="Create New Ticket" onClose={onClose} wide>
      <TicketForm
        categories={categories.data?.categories}
        categoriesError={categories.isError}
        supportEmail={desk.data?.supportEmail}
        existing={existing}
        submitting={isLoading}
        error={error}
        onSubmit={submit}
        onCancel={onClose}
      />
    </Modal>
  );
}
