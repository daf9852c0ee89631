import { useCallback, useState } from 'react';

/**
 * The state every list screen with an add/edit dialog and a delete confirmation keeps: the record
 * being edited (or 'new'), the one waiting for the delete confirmation, and the save error shown in
 * the dialog (kept there, with the typed values, until the dialog closes).
 */
export function useEditing<T>() {
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const close = useCallback(() => {
    setEditing(null);
    setFormError(null);
  }, []);
  return { editing, setEditing, deleting, setDeleting, formError, setFormError, close };
}
