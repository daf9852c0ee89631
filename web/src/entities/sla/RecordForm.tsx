import { type FormEvent, useState } from 'react';
import { Banner } from '../../components/ui';
import type { FieldErrors } from '../../lib/validation';

/**
 * The state of a calendar's or policy's dialog: the draft, the schema's messages by field, and a
 * submit that hands on only a draft whose whole document passes `check`.
 */
export function useRecordDraft<D>(initial: () => D, check: (draft: D) => FieldErrors, onSubmit: (draft: D) => void) {
  const [draft, setDraft] = useState<D>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (patch: Partial<D>) => setDraft((current) => ({ ...current, ...patch }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = check(draft);
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(draft);
  };
  const problem = (path: string) => errors[path] && <span className="field-error">{errors[path]}</span>;
  return { draft, setDraft, set, errors, submit, problem };
}

/** The dialog's banners: the server's refusal, and a message of the schema that belongs to no field of the record. */
export function RecordErrors({ error, errors }: { error: string | null; errors: FieldErrors }) {
  const general = errors._form ?? errors._record;
  return (
    <>
      {error && <Banner kind="error">{error}</Banner>}
      {general && <Banner kind="error">{general}</Banner>}
    </>
  );
}
