import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { addWhitelistSchema } from '#contract/whitelist';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { AccessDenied, Badge, Banner, Card, CountedLabel, EmptyState, FlashBanner, FormActions, PageHeader, DataTable } from '../../components/ui';
import { useFlash } from '../../lib/flash';
import { formatDate, formatDateTime, fullName } from '../../lib/format';
import { type FieldErrors, checkWith } from '../../lib/validation';
import { selectUser } from '../../entities/session/sessionSlice';
import {
  type AccessRequest,
  type WhitelistEntry,
  type WhitelistInput,
  useAccessRequestsQuery,
  useAddToWhitelistMutation,
  useApproveRequestMutation,
  useDeleteWhitelistEntryMutation,
  useRejectRequestMutation,
  useUpdateWhitelistEntryMutation,
  useWhitelistQuery,
} from './api';

/** The notes' limit, as the whitelist's schema has it (`optionalParagraph('Notes', 500)`). */
const NOTES_MAX = 500;

/** A new request shows up without a reload: someone writing to the bot is waiting for an answer. */
const REQUEST_POLL_MS = 30_000;

/** docs/product.md section 2: '@username', else the full name, else 'Unknown User'. */
export const requesterName = (request: Pick<AccessRequest, 'username' | 'firstName' | 'lastName'>) =>
  request.username ? `@${request.username}` : fullName(request) || 'Unknown User';

/** docs/product.md section 2: the search matches Telegram ID, username, first name or last name, case-insensitive. */
export function filterEntries(entries: WhitelistEntry[], search: string): WhitelistEntry[] {
  const needle = search.trim().toLowerCase().replace(/^@/, '');
  if (!needle) return entries;
  return entries.filter((entry) => [entry.telegramId, entry.username, entry.firstName, entry.lastName].some((value) => value.toLowerCase().includes(needle)));
}

/** The add/edit form: the Telegram ID is required on add and locked on edit (docs/product.md sections 2 and 5). */
export function WhitelistForm({
  entry,
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  entry: WhitelistEntry | null;
  saving: boolean;
  error: string | null;
  onSubmit: (input: WhitelistInput) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<WhitelistInput>(
    entry
      ? { telegramId: entry.telegramId, username: entry.username, firstName: entry.firstName, lastName: entry.lastName, notes: entry.notes }
      : { telegramId: '', username: '', firstName: '', lastName: '', notes: '' },
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkWith(addWhitelistSchema, draft);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit({ ...draft, telegramId: checked.data.telegramId });
  };
  const field = (name: keyof WhitelistInput, label: string, props: Record<string, unknown> = {}) => (
    <div className="field">
      {name === 'notes' ? (
        // Counted, not cut: a pasted text over the limit shows as over and is refused with the reason, never trimmed unseen.
        <CountedLabel htmlFor={`whitelist-${name}`} label={label} length={draft[name].length} max={NOTES_MAX} />
      ) : (
        <label htmlFor={`whitelist-${name}`}>{label}</label>
      )}
      {name === 'notes' ? (
        <textarea
          id={`whitelist-${name}`}
          rows={2}
          value={draft[name]}
          aria-invalid={errors[name] ? true : undefined}
          onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
          {...props}
        />
      ) : (
        <input
          id={`whitelist-${name}`}
          value={draft[name]}
          aria-invalid={errors[name] ? true : undefined}
          onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
          {...props}
        />
      )}
      {errors[name] && <span className="field-error">{errors[name]}</span>}
    </div>
  );
  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      {field('telegramId', 'Telegram ID', { inputMode: 'numeric', disabled: entry !== null, placeholder: '123456789' })}
      <p className="hint">
        {entry
          ? 'The Telegram ID cannot be changed; add a new entry for another ID.'
          : 'Don\u2019t know the ID? Ask the person to send any message to a helper bot such as @userinfobot on Telegram; it replies with their numeric ID.'}
      </p>
      {field('username', 'Username', { placeholder: '@username', maxLength: 33 })}
      <div className="form-row">
        {field('firstName', 'First Name', { maxLength: 64 })}
        {field('lastName', 'Last Name', { maxLength: 64 })}
      </div>
      {field('notes', 'Notes', { placeholder: 'Who this is and why they may use the bot' })}
      <FormActions saving={saving} submitLabel={entry ? 'Update Entry' : 'Add to Whitelist'} onCancel={onCancel} />
    </form>
  );
}

export function AccessRequests({
  requests,
  busy,
  onApprove,
  onReject,
}: {
  requests: AccessRequest[];
  busy: boolean;
  onApprove: (request: AccessRequest) => void;
  onReject: (request: AccessRequest) => void;
}) {
  if (requests.length === 0) return null;
  return (
    <Card
      className="access-requests"
      title={
        <>
          Pending Access Requests{' '}
          <Badge variant="warning" className="as-written">
            {requests.length} pending
          </Badge>
        </>
      }
    >
      <ul className="request-list">
        {requests.map((request) => (
          <li key={request._id} className="request" aria-label={`Request from ${requesterName(request)}`}>
            <div className="request-body">
              <strong>{requesterName(request)}</strong> <span className="muted mono">ID: {request.telegramId}</span>
              <dl className="request-facts small">
                <dt>First attempt</dt>
                <dd>{formatDateTime(request.firstAttemptAt)}</dd>
                <dt>Last attempt</dt>
                <dd>{formatDateTime(request.lastAttemptAt)}</dd>
                <dt>Attempts</dt>
                <dd>{request.attemptCount}</dd>
              </dl>
              {request.lastMessage && <blockquote className="small preserve">{request.lastMessage}</blockquote>}
            </div>
            <div className="request-actions">
              <button type="button" className="button button-primary button-small" disabled={busy} onClick={() => onApprove(request)}>
                <Icon name="check" size={14} /> Approve
              </button>
              <button type="button" className="button button-ghost button-small danger" disabled={busy} onClick={() => onReject(request)}>
                <Icon name="close" size={14} /> Reject
              </button>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function WhitelistTable({
  entries,
  filtering,
  busy,
  onEdit,
  onToggle,
  onDelete,
}: {
  entries: WhitelistEntry[];
  filtering: boolean;
  busy: boolean;
  onEdit: (entry: WhitelistEntry) => void;
  onToggle: (entry: WhitelistEntry) => void;
  onDelete: (entry: WhitelistEntry) => void;
}) {
  if (entries.length === 0) return <EmptyState title={filtering ? 'No entries match your search' : 'No whitelisted users yet'} icon="telegram" />;
  return (
    <DataTable columns={['Telegram ID', 'Username', 'Name', 'Notes', 'Status', 'Added', 'Actions']}>
      {entries.map((entry) => (
        <tr key={entry._id}>
          <td className="mono">{entry.telegramId}</td>
          <td>{entry.username ? `@${entry.username}` : <span className="muted">—</span>}</td>
          <td>{fullName(entry) || <span className="muted">—</span>}</td>
          <td className="notes-cell">{entry.notes || <span className="muted">—</span>}</td>
          <td>
            <Badge variant={entry.isActive ? 'success' : 'outline'}>{entry.isActive ? 'Active' : 'Inactive'}</Badge>
          </td>
          <td>{formatDate(entry.createdAt)}</td>
          <td>
            <div className="row-actions">
              <button type="button" className="icon-button" aria-label={`Edit ${entry.telegramId}`} title="Edit details" onClick={() => onEdit(entry)}>
                <Icon name="edit" size={16} />
              </button>
              <button
                type="button"
                className="button button-ghost button-small"
                disabled={busy}
                aria-label={`${entry.isActive ? 'Deactivate' : 'Activate'} ${entry.telegramId}`}
                onClick={() => onToggle(entry)}
              >
                {entry.isActive ? 'Deactivate' : 'Activate'}
              </button>
              <button
                type="button"
                className="icon-button danger"
                aria-label={`Delete ${entry.telegramId}`}
                title="Delete permanently"
                onClick={() => onDelete(entry)}
              >
                <Icon name="trash" size={16} />
              </button>
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function WhitelistPage() {
  const user = useAppSelector(selectUser);
  const admin = user?.role === 'admin';
  const entries = useWhitelistQuery(undefined, { skip: !admin });
  const requests = useAccessRequestsQuery(undefined, { skip: !admin, pollingInterval: REQUEST_POLL_MS });
  const [search, setSearch] = useState('');
  const { flash, show, clear } = useFlash();
  const startAdding = () => {
    clear();
    setEditing('new');
  };
  const [add, adding] = useAddToWhitelistMutation();
  const [update, updating] = useUpdateWhitelistEntryMutation();
  const [remove, removing] = useDeleteWhitelistEntryMutation();
  const [approve, approving] = useApproveRequestMutation();
  const [reject, rejecting] = useRejectRequestMutation();
  const editor = useListEditor<WhitelistEntry, WhitelistInput>({
    create: (input) => add(input).unwrap(),
    // The Telegram ID is the entry's key: an edit changes everything but it.
    update: (entry, { telegramId: _locked, ...details }) => update({ telegramId: entry.telegramId, ...details }).unwrap(),
    remove: (entry) => remove(entry._id).unwrap(),
    notify: (kind, text) => {
      clear();
      show(kind, text);
    },
    texts: {
      created: 'Telegram ID added to whitelist',
      updated: 'Whitelist entry updated successfully',
      deleted: 'Entry permanently deleted',
      saveFailed: 'Failed to save entry',
      deleteFailed: 'Failed to delete entry',
    },
  });
  const { setEditing, setDeleting } = editor;
  const shown = useMemo(() => filterEntries(entries.data?.entries ?? [], search), [entries.data, search]);
  useEffect(() => {
    if (requests.error) console.error('Access requests failed to load', requests.error);
  }, [requests.error]);
  if (!admin) return <AccessDenied>Access Denied: You must be an administrator to manage the Telegram whitelist.</AccessDenied>;

  const run = async (action: () => Promise<{ message?: string } | void>, success: string | null, failure: string) => {
    clear();
    try {
      const answer = await action();
      show('success', (answer && answer.message) || success || 'Done');
      return true;
    } catch (error) {
      show('error', errorMessage(error, failure));
      return false;
    }
  };
  const toggle = (entry: WhitelistEntry) =>
    void run(
      () => update({ telegramId: entry.telegramId, isActive: !entry.isActive }).unwrap(),
      entry.isActive ? 'User deactivated successfully' : 'User activated successfully',
      entry.isActive ? 'Failed to deactivate user' : 'Failed to activate user',
    );
  return (
    <div className="page">
      <PageHeader title="Telegram Whitelist" subtitle="Manage allowed Telegram users">
        <button type="button" className="button button-primary" onClick={startAdding}>
          <Icon name="plus" size={16} /> Add Telegram ID
        </button>
      </PageHeader>
      <FlashBanner flash={flash} onClose={clear} />
      {entries.error ? <Banner kind="error">{errorMessage(entries.error, 'Failed to load whitelist')}</Banner> : null}
      <AccessRequests
        requests={requests.data?.requests ?? []}
        busy={approving.isLoading || rejecting.isLoading}
        onApprove={(request) => void run(() => approve(request.telegramId).unwrap(), null, 'Failed to approve request')}
        onReject={(request) => void run(() => reject(request.telegramId).unwrap(), null, 'Failed to reject request')}
      />
      <Card
        title={
          <>
            {/* A count only once the list is known: a failed load shows its error, not "0" (issue 41). */}
            Whitelisted Users {entries.data && <Badge variant="secondary">{entries.data.entries.length}</Badge>}
          </>
        }
      >
        <div className="toolbar">
          <input
            type="search"
            className="search"
            placeholder="Search by Telegram ID, username, or name..."
            aria-label="Search whitelist"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        {/* A failed load shows its error above, never an empty list under it (issue 25). */}
        {entries.isLoading ? (
          <p className="muted">Loading whitelist...</p>
        ) : entries.error ? null : (
          <WhitelistTable
            entries={shown}
            filtering={search.trim() !== ''}
            busy={updating.isLoading}
            onEdit={setEditing}
            onToggle={toggle}
            onDelete={setDeleting}
          />
        )}
      </Card>
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add Telegram ID', edit: 'Edit Whitelist Entry' }}
        confirmMessage="Are you sure you want to permanently delete this entry? This cannot be undone."
        saving={adding.isLoading || updating.isLoading}
        removing={removing.isLoading}
        form={({ record, ...dialog }) => <WhitelistForm entry={record} {...dialog} />}
      />
    </div>
  );
}
