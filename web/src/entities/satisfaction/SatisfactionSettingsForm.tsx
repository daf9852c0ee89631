import { type FormEvent, useState } from 'react';
import { SATISFACTION_CHANNELS, type SatisfactionSettings, updateSatisfactionSettingsSchema } from '#contract/satisfaction';
import { errorMessage } from '../../app/api';
import { Banner, Card } from '../../components/ui';
import { type FieldErrors, checkWith } from '../../lib/validation';
import { useSatisfactionSettingsQuery, useUpdateSatisfactionSettingsMutation } from './api';

const CHANNEL_LABELS = { web: 'Web app (prompt on the ticket)', telegram: 'Telegram (buttons)', email: 'E-mail (one-click links)' } as const;

function Form({ settings }: { settings: SatisfactionSettings }) {
  const [draft, setDraft] = useState(() => ({ ...settings, labels: [...settings.labels], delayMinutes: String(settings.delayMinutes) }));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [save, saving] = useUpdateSatisfactionSettingsMutation();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const checked = checkWith(updateSatisfactionSettingsSchema, { ...draft, delayMinutes: Number(draft.delayMinutes) });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    try {
      await save(checked.data).unwrap();
      setNotice({ kind: 'success', text: 'Satisfaction settings saved' });
    } catch (failure) {
      setNotice({ kind: 'error', text: errorMessage(failure, 'Failed to save the satisfaction settings') });
    }
  };
  const fieldError = (path: string) => errors[path] && <p className="field-error">{errors[path]}</p>;

  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate>
      {notice && <Banner kind={notice.kind}>{notice.text}</Banner>}
      <label className="checkbox">
        <input type="checkbox" checked={draft.enabled} onChange={(event) => setDraft({ ...draft, enabled: event.target.checked })} /> Ask customers to rate each
        resolution
      </label>
      <label htmlFor="csat-question">Question</label>
      <input id="csat-question" value={draft.question} onChange={(event) => setDraft({ ...draft, question: event.target.value })} />
      {fieldError('question')}
      <fieldset>
        <legend>Labels of the scores 1 to 5</legend>
        {draft.labels.map((label, index) => (
          <label key={index}>
            {index + 1}{' '}
            <input
              aria-label={`Label of score ${index + 1}`}
              value={label}
              onChange={(event) => setDraft({ ...draft, labels: draft.labels.map((old, at) => (at === index ? event.target.value : old)) })}
            />
            {fieldError(`labels.${index}`)}
          </label>
        ))}
        {fieldError('labels')}
      </fieldset>
      <label htmlFor="csat-delay">Delay after the resolution (minutes, Telegram and e-mail)</label>
      <input id="csat-delay" inputMode="numeric" value={draft.delayMinutes} onChange={(event) => setDraft({ ...draft, delayMinutes: event.target.value })} />
      {fieldError('delayMinutes')}
      <fieldset>
        <legend>Channels that ask</legend>
        {SATISFACTION_CHANNELS.map((channel) => (
          <label key={channel} className="checkbox">
            <input
              type="checkbox"
              checked={draft.channels[channel]}
              onChange={(event) => setDraft({ ...draft, channels: { ...draft.channels, [channel]: event.target.checked } })}
            />{' '}
            {CHANNEL_LABELS[channel]}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="button button-primary" disabled={saving.isLoading}>
        Save satisfaction settings
      </button>
    </form>
  );
}

/** The admin's group of the survey settings on the System Settings page. */
export function SatisfactionSettingsGroup() {
  const { data, error } = useSatisfactionSettingsQuery();
  return (
    <Card title="Customer Satisfaction">
      {error && <Banner kind="error">{errorMessage(error, 'Failed to load the satisfaction settings')}</Banner>}
      {data && <Form settings={data} />}
    </Card>
  );
}
