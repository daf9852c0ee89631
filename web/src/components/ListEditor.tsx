import type { ReactNode } from 'react';
import { errorMessage } from '../app/api';
import { useEditing } from '../lib/editing';
import { ConfirmDialog, Modal } from './ui';

/** How a screen tells the outcome: a toast on the admin tabs, the page's flash banner elsewhere. */
type Notify = (kind: 'success' | 'error', text: string) => void;

interface ListEditorOptions<T, Input> {
  create(input: Input): Promise<unknown>;
  update(record: T, input: Input): Promise<unknown>;
  /** The server's `{ message }`, when it answers one, is what the screen says after a delete. */
  remove(record: T): Promise<{ message?: string } | unknown>;
  notify: Notify;
  texts: {
    created: string;
    updated: string;
    deleted: string;
    /** Shown in the dialog when the server gives no reason of its own. */
    saveFailed: string | { create: string; update: string };
    deleteFailed: string;
  };
  /** Runs after a save instead of closing only the editor (a screen with more dialogs closes them all). */
  closeAfterSave?: () => void;
}

/**
 * The list screens with an add/edit dialog and a delete confirmation (categories, users, bot
 * commands, canned messages, the whitelist): the editing state, the save that creates or updates
 * and keeps the server's error in the dialog with the typed values, and the confirmed delete.
 */
export function useListEditor<T, Input>({ create, update, remove, notify, texts, closeAfterSave }: ListEditorOptions<T, Input>) {
  const editor = useEditing<T>();
  const { editing, deleting, setDeleting, setFormError, close } = editor;
  const save = async (input: Input) => {
    if (!editing) return;
    setFormError(null);
    try {
      if (editing === 'new') await create(input);
      else await update(editing, input);
      notify('success', editing === 'new' ? texts.created : texts.updated);
      (closeAfterSave ?? close)();
    } catch (failure) {
      const fallback = typeof texts.saveFailed === 'string' ? texts.saveFailed : editing === 'new' ? texts.saveFailed.create : texts.saveFailed.update;
      setFormError(errorMessage(failure, fallback));
    }
  };
  const confirmRemove = async () => {
    if (!deleting) return;
    try {
      const answer = (await remove(deleting)) as { message?: string } | undefined;
      notify('success', answer?.message || texts.deleted);
    } catch (failure) {
      notify('error', errorMessage(failure, texts.deleteFailed));
    }
    setDeleting(null);
  };
  return { ...editor, save, confirmRemove };
}

type ListEditor<T, Input> = ReturnType<typeof useListEditor<T, Input>>;

/** What a record's form is given: the record (null when adding) and the dialog's state and actions. */
export interface ListFormProps<T, Input> {
  record: T | null;
  saving: boolean;
  error: string | null;
  onSubmit(input: Input): void;
  onCancel(): void;
}

/** The add/edit dialog around a screen's form and the delete confirmation, for a `useListEditor`. */
export function ListEditorDialogs<T, Input>({
  editor,
  titles,
  confirmMessage,
  saving,
  removing,
  wide,
  onClose,
  form,
}: {
  editor: ListEditor<T, Input>;
  titles: { add: string; edit: string };
  confirmMessage: string;
  saving: boolean;
  removing: boolean;
  wide?: boolean;
  /** Closes the dialog; the editor's own close unless the screen has more to close. */
  onClose?: () => void;
  form(props: ListFormProps<T, Input>): ReactNode;
}) {
  const { editing, deleting, setDeleting, formError, close, save, confirmRemove } = editor;
  const closeDialog = onClose ?? close;
  return (
    <>
      {editing && (
        <Modal title={editing === 'new' ? titles.add : titles.edit} onClose={closeDialog} wide={wide}>
          {form({
            record: editing === 'new' ? null : editing,
            saving,
            error: formError,
            onSubmit: (input) => void save(input),
            onCancel: closeDialog,
          })}
        </Modal>
      )}
      {deleting && <ConfirmDialog message={confirmMessage} busy={removing} onConfirm={() => void confirmRemove()} onCancel={() => setDeleting(null)} />}
    </>
  );
}
