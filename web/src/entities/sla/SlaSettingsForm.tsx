import { type FormEvent, useState } from 'react';
import { type SlaSettings, slaSettingsSchema } from '#contract/sla';
import { errorMessage } from '../../app/api';
import { Banner, Card } from '../../components/ui';
import { checkWith } from '../../lib/validation';
import { type SlaSettingsView, useSlaSettingsQuery, useUpdateSlaSettingsMutation } from './api';

/** An example to start from: a Berlin office calendar and one policy for every category. */
const EXAMPLE: SlaSettings = {
  calendars: [
    {
      id: 'office',
      name: 'Office hours',
      timeZone: 'Europe/Berlin',
      week: [[], ...Array.from({ length: 5 }, () => [{ start: '09:00', end: '17:00' }]), []],
      holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
    },
  ],
  defaultCalendarId: 'office',
  policies: [
    {
      id: 'standard',
      name: 'Standard',
      categoryId: null,
      calendarId: 'office',
      targets: Object.fromEntries(
        (['low', 'medium', 'high', 'urgent'] as const).map((priority, index) => [
          priority,
          { firstResponse: 240 / (index + 1), nextResponse: 480 / (index + 1), resolution: 2400 / (index + 1) },
        ]),
      ) as SlaSettings['policies'][number]['targets'],
    },
  ],
  pauseStatuses: ['pending_customer'],
  warnPercent: 80,
};

const settingsOnly = ({ calendars, defaultCalendarId, policies, pauseStatuses, warnPercent }: SlaSettingsView): SlaSettings => ({
  calendars,
  defaultCalendarId,
  policies,
  pauseStatuses,
  warnPercent,
});

/**
 * The calendars and policies as one JSON document, checked with the server's own schema before it is
 * sent (the server checks again, and also that the categories exist). Each save is a new version;
 * tickets keep the version they opened under (docs/sla.md).
 */
function Form({ settings }: { settings: SlaSettingsView }) {
  const [text, setText] = useState(() => JSON.stringify(settingsOnly(settings), null, 2));
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [save, saving] = useUpdateSlaSettingsMutation();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (failure) {
      return setNotice({ kind: 'error', text: `Not valid JSON: ${(failure as Error).message}` });
    }
    const checked = checkWith(slaSettingsSchema, value);
    if (!checked.ok)
      return setNotice({
        kind: 'error',
        text: Object.entries(checked.errors)
          .map(([path, message]) => `${path}: ${message}`)
          .join('; '),
      });
    try {
      const saved = await save(checked.data).unwrap();
      setNotice({ kind: 'success', text: `Service levels saved (version ${saved.version})` });
    } catch (failure) {
      setNotice({ kind: 'error', text: errorMessage(failure, 'Failed to save the service levels') });
    }
  };
  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate>
      {notice && <Banner kind={notice.kind}>{notice.text}</Banner>}
      <p className="muted small">
        Version {settings.version}. Calendars: an IANA time zone, seven days of intervals (Sunday first; an end before its start runs overnight) and holidays.
        Policies: minutes per priority for first response, next response and resolution (null leaves one out), for one category or every other (categoryId
        null), in a calendar's business hours or around the clock (calendarId null).
      </p>
      <label htmlFor="sla-settings">Calendars and policies (JSON)</label>
      <textarea id="sla-settings" rows={18} spellCheck={false} className="code" value={text} onChange={(event) => setText(event.target.value)} />
      <div className="form-actions">
        <button type="button" className="button button-ghost" onClick={() => setText(JSON.stringify(EXAMPLE, null, 2))}>
          Start from an example
        </button>
        <button type="submit" className="button button-primary" disabled={saving.isLoading}>
          Save service levels
        </button>
      </div>
    </form>
  );
}

export function SlaSettingsGroup() {
  const { data, error } = useSlaSettingsQuery();
  return (
    <Card title="Service Levels">
      {error && <Banner kind="error">{errorMessage(error, 'Failed to load the service levels')}</Banner>}
      {data && <Form settings={data} />}
    </Card>
  );
}
