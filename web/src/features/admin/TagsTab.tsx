import { type FormEvent, useId, useState } from 'react';
import { tagSchema } from '#contract/tickets';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { Banner, ConfirmDialog, EmptyState, Modal } from '../../components/ui';
import { plural } from '../../lib/format';
import { type TagInUse, useChangeTagMutation, useTagsInUseQuery } from './tagsApi';

interface Change {
  tag: TagInUse;
  merge: boolean;
}

/** The new name, or the tag to merge into (one in use, offered as a list), checked as the server checks it. */
function ChangeDialog({ change, tags, onCancel, onChosen }: { change: Change; tags: TagInUse[]; onCancel: () => void; onChosen: (into: string) => void }) {
  const fieldId = useId();
  const others = tags.filter(({ tag }) => tag !== change.tag.tag);
  const [into, setInto] = useState(change.merge ? (others[0]?.tag ?? '') : '');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = tagSchema.safeParse(into);
    if (!parsed.success) return setProblem(parsed.error.issues[0]!.message);
    if (parsed.data === change.tag.tag) return setProblem('Choose a different tag');
    onChosen(parsed.data);
  };
  return (
    <Modal title={change.merge ? `Merge the tag "${change.tag.tag}"` : `Rename the tag "${change.tag.tag}"`} onClose={onCancel}>
      <form onSubmit={submit} noValidate>
        <label htmlFor={fieldId}>{change.merge ? 'Merge into' : 'New name'}</label>
        {change.merge ? (
          <select id={fieldId} value={into} onChange={(event) => setInto(event.target.value)}>
            {others.map(({ tag }) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        ) : (
          <input id={fieldId} value={into} maxLength={30} autoFocus onChange={(event) => setInto(event.target.value)} />
        )}
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="button" className="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={!into}>
            {change.merge ? 'Merge' : 'Rename'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/**
 * The Admin Panel's Tags tab (docs/teams.md): the tags in use with how many tickets carry them; a rename
 * or merge reaches every such ticket, each recorded in its history with the admin as actor.
 */
export function TagsTab() {
  const dispatch = useAppDispatch();
  const { data: tags, error, isLoading } = useTagsInUseQuery();
  const [changeTag, changing] = useChangeTagMutation();
  const [change, setChange] = useState<Change | null>(null);
  const [into, setInto] = useState<string | null>(null);
  const close = () => {
    setChange(null);
    setInto(null);
  };
  const confirm = async () => {
    if (!change || !into) return;
    try {
      const done = await changeTag({ tag: change.tag.tag, into, merge: change.merge }).unwrap();
      const verb = done.merged ? `Merged "${done.from}" into "${done.to}"` : `Renamed "${done.from}" to "${done.to}"`;
      dispatch(toastShown('success', `${verb} on ${plural(done.tickets, 'ticket')}`));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to change the tag')));
    }
    close();
  };
  return (
    <div className="admin-tab">
      <div className="toolbar">
        <p className="muted">Tags in use, most used first. Renaming or merging a tag changes it on every ticket that carries it.</p>
      </div>
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load tags')}</Banner> : null}
      {isLoading && <p className="muted">Loading tags...</p>}
      {tags && tags.length === 0 && (
        <EmptyState title="No tags yet" icon="tag">
          Staff add tags on a ticket&apos;s page.
        </EmptyState>
      )}
      {tags && tags.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Tag</th>
              <th scope="col">Tickets</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tags.map((tag) => (
              <tr key={tag.tag}>
                <td>{tag.tag}</td>
                <td>{tag.uses}</td>
                <td>
                  <button
                    type="button"
                    className="button button-ghost button-small"
                    aria-label={`Rename tag ${tag.tag}`}
                    onClick={() => setChange({ tag, merge: false })}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    className="button button-ghost button-small"
                    aria-label={`Merge tag ${tag.tag}`}
                    disabled={tags.length < 2}
                    onClick={() => setChange({ tag, merge: true })}
                  >
                    Merge
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {change && into === null && <ChangeDialog change={change} tags={tags ?? []} onCancel={close} onChosen={setInto} />}
      {change && into !== null && (
        <ConfirmDialog
          message={
            change.merge
              ? `Merge the tag "${change.tag.tag}" into "${into}" on ${plural(change.tag.uses, 'ticket')}? Tickets that have both keep "${into}" once.`
              : `Rename the tag "${change.tag.tag}" to "${into}" on ${plural(change.tag.uses, 'ticket')}?`
          }
          confirmLabel={change.merge ? 'Merge' : 'Rename'}
          busy={changing.isLoading}
          onConfirm={() => void confirm()}
          onCancel={close}
        />
      )}
    </div>
  );
}
