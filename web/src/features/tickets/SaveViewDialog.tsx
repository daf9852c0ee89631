import { type FormEvent, useState } from 'react';
import type { SavedView, Team } from '#contract/responses';
import type { ViewColumn, ViewFilters, ViewScope, ViewSort } from '#contract/views';
import { createViewSchema } from '#contract/views';
import { errorMessage } from '../../app/api';
import { Banner, ConfirmDialog, Modal } from '../../components/ui';
import { useCreateViewMutation, useDeleteViewMutation, useUpdateViewMutation } from './viewsApi';

/** What Live Tickets shows now: what "Save view" keeps. */
export interface CurrentView {
  filters: ViewFilters;
  sort: ViewSort;
  columns: ViewColumn[];
}

/** The scope select's value: `personal`, `everyone` or `team:<id>`. */
const scopeValue = (view: Pick<SavedView, 'scope' | 'teamId'>) => (view.scope === 'team' ? `team:${view.teamId}` : view.scope);
const scopeOf = (value: string): { scope: ViewScope; teamId: string | null } =>
  value.startsWith('team:') ? { scope: 'team', teamId: value.slice(5) } : { scope: value as ViewScope, teamId: null };

/**
 * Saves the current filters, sort and columns as a view, or renames, moves, updates or deletes one
 * (docs/views.md). The scopes offered are those the server allows: one's own, one's teams (an admin:
 * every team), everyone (admins); the server decides all the same, and its refusal is shown here.
 */
export function SaveViewDialog({
  editing,
  current,
  teams,
  isAdmin,
  onSaved,
  onClose,
}: {
  editing: SavedView | null;
  current: CurrentView;
  teams: Team[];
  isAdmin: boolean;
  onSaved: (view: SavedView | null) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [scope, setScope] = useState(editing ? scopeValue(editing) : 'personal');
  const [useCurrent, setUseCurrent] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [create, creating] = useCreateViewMutation();
  const [update, updating] = useUpdateViewMutation();
  const [remove, removing] = useDeleteViewMutation();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const target = scopeOf(scope);
    const body = { name, ...target, ...(editing && !useCurrent ? {} : current) };
    const checked = createViewSchema.safeParse({ ...body, teamId: target.teamId ?? undefined });
    if (!checked.success) return setError(checked.error.issues[0]!.message);
    try {
      const saved = editing
        ? await update({ id: editing._id, ...body, ...(scope === scopeValue(editing) ? { scope: undefined, teamId: undefined } : {}) }).unwrap()
        : await create({ ...body, teamId: target.teamId ?? undefined }).unwrap();
      onSaved(saved.view);
    } catch (failure) {
      setError(errorMessage(failure, 'The view could not be saved'));
    }
  };

  return (
    <Modal title={editing ? 'Edit view' : 'Save view'} onClose={onClose}>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        {error && <Banner kind="error">{error}</Banner>}
        <div className="field">
          <label htmlFor="view-name">Name</label>
          <input id="view-name" required maxLength={60} value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. Billing, urgent" />
        </div>
        <div className="field">
          <label htmlFor="view-scope">Share with</label>
          <select id="view-scope" value={scope} onChange={(event) => setScope(event.target.value)}>
            <option value="personal">Only me</option>
            {teams.map((team) => (
              <option key={team._id} value={`team:${team._id}`}>
                Team: {team.name}
              </option>
            ))}
            {isAdmin && <option value="everyone">Everyone</option>}
          </select>
        </div>
        {editing && (
          <label className="checkbox-field">
            <input type="checkbox" checked={useCurrent} onChange={(event) => setUseCurrent(event.target.checked)} /> Use the filters, sort and columns shown now
          </label>
        )}
        <div className="form-actions">
          {editing && (
            <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
              Delete
            </button>
          )}
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={creating.isLoading || updating.isLoading}>
            {creating.isLoading || updating.isLoading ? 'Saving...' : 'Save'}
          </button>
        </div>
      </form>
      {deleting && editing && (
        <ConfirmDialog
          message={`Are you sure you want to delete the view "${editing.name}"?`}
          busy={removing.isLoading}
          onCancel={() => setDeleting(false)}
          onConfirm={() =>
            void remove(editing._id)
              .unwrap()
              .then(
                () => onSaved(null),
                (failure: unknown) => {
                  setDeleting(false);
                  setError(errorMessage(failure, 'The view could not be deleted'));
                },
              )
          }
        />
      )}
    </Modal>
  );
}
