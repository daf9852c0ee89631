import { useMemo } from 'react';
import { Icon } from '../../components/icons';
import { FormActions, TextField } from '../../components/ui';
import type { FieldErrors } from '../../lib/validation';
import { RecordErrors, useRecordDraft } from './RecordForm';
import { type CalendarDraft, type SlaCalendar, WEEKDAYS, calendarDraft, rowKey, timeZones } from './settingsDraft';

/**
 * One calendar of docs/sla.md: a name, an IANA time zone, whether it is the default, several
 * business-hour intervals per weekday and dated holidays. `check` runs the server's schema over the
 * whole document as it would be saved and answers this calendar's messages by field.
 */
export function CalendarForm({
  calendar,
  isDefault,
  defaultLocked,
  saving,
  error,
  check,
  onSubmit,
  onCancel,
}: {
  calendar: SlaCalendar | null;
  isDefault: boolean;
  /** The default calendar, or the first one: it stays the default until another is made so. */
  defaultLocked: boolean;
  saving: boolean;
  error: string | null;
  check: (draft: CalendarDraft) => FieldErrors;
  onSubmit: (draft: CalendarDraft) => void;
  onCancel: () => void;
}) {
  const { draft, setDraft, set, errors, submit, problem } = useRecordDraft(
    () => calendarDraft(calendar, isDefault, Intl.DateTimeFormat().resolvedOptions().timeZone),
    check,
    onSubmit,
  );
  const zones = useMemo(() => timeZones(draft.timeZone), [draft.timeZone]);
  const setDay = (index: number, change: (day: CalendarDraft['week'][number]) => CalendarDraft['week'][number]) =>
    setDraft((current) => ({ ...current, week: current.week.map((day, at) => (at === index ? change(day) : day)) }));

  return (
    <form className="form" onSubmit={submit} noValidate>
      <RecordErrors error={error} errors={errors} />
      <div className="form-row">
        <TextField id="calendar-name" label="Name" maxLength={100} value={draft.name} error={errors.name} onChange={(name) => set({ name })} />
        <div className="field">
          <label htmlFor="calendar-zone">Time zone</label>
          <select id="calendar-zone" value={draft.timeZone} onChange={(e) => set({ timeZone: e.target.value })}>
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
          {problem('timeZone')}
        </div>
      </div>
      <label className="toggle">
        <input type="checkbox" checked={draft.isDefault} disabled={defaultLocked} onChange={(e) => set({ isDefault: e.target.checked })} />
        Default calendar {defaultLocked && <span className="muted small">(make another calendar the default to change this)</span>}
      </label>

      <fieldset className="custom-fields">
        <legend>Business hours</legend>
        <p className="hint">An end at or before its start runs overnight into the next morning; an end of 00:00 is midnight.</p>
        {problem('week')}
        {WEEKDAYS.map(({ index, name }) => {
          const day = draft.week[index]!;
          return (
            <div className="sla-day" key={index} role="group" aria-label={name}>
              <strong className="sla-day-name">{name}</strong>
              <div className="sla-day-intervals">
                {day.length === 0 && <span className="muted small">Closed</span>}
                {day.map((interval, at) => {
                  const path = `week.${index}.${at}`;
                  return (
                    <div className="sla-interval" key={interval.key}>
                      <input
                        type="time"
                        aria-label={`${name} interval ${at + 1} start`}
                        value={interval.start}
                        aria-invalid={errors[`${path}.start`] ? true : undefined}
                        onChange={(e) => setDay(index, (all) => all.map((one) => (one.key === interval.key ? { ...one, start: e.target.value } : one)))}
                      />
                      <span aria-hidden="true">–</span>
                      <input
                        type="time"
                        aria-label={`${name} interval ${at + 1} end`}
                        value={interval.end}
                        aria-invalid={errors[`${path}.end`] ? true : undefined}
                        onChange={(e) => setDay(index, (all) => all.map((one) => (one.key === interval.key ? { ...one, end: e.target.value } : one)))}
                      />
                      <button
                        type="button"
                        className="icon-button"
                        aria-label={`Remove ${name} interval ${at + 1}`}
                        title="Remove interval"
                        onClick={() => setDay(index, (all) => all.filter((one) => one.key !== interval.key))}
                      >
                        <Icon name="trash" size={14} />
                      </button>
                      {problem(`${path}.start`) || problem(`${path}.end`) || problem(path)}
                    </div>
                  );
                })}
                {problem(`week.${index}`)}
              </div>
              <button
                type="button"
                className="button button-ghost button-small"
                aria-label={`Add ${name} interval`}
                onClick={() => {
                  const last = day.at(-1);
                  setDay(index, (all) => [...all, { key: rowKey(), start: last ? last.end : '09:00', end: last ? '' : '17:00' }]);
                }}
              >
                <Icon name="plus" size={14} /> Interval
              </button>
            </div>
          );
        })}
      </fieldset>

      <fieldset className="custom-fields">
        <legend>Holidays</legend>
        <p className="hint">No business hours start on these dates.</p>
        {draft.holidays.length === 0 && <p className="muted small">No holidays.</p>}
        {problem('holidays')}
        {draft.holidays.map((holiday, at) => (
          <div className="sla-holiday" key={holiday.key} role="group" aria-label={`Holiday ${at + 1}`}>
            <input
              type="date"
              aria-label={`Holiday ${at + 1} date`}
              value={holiday.date}
              aria-invalid={errors[`holidays.${at}.date`] ? true : undefined}
              onChange={(e) => set({ holidays: draft.holidays.map((one) => (one.key === holiday.key ? { ...one, date: e.target.value } : one)) })}
            />
            <input
              aria-label={`Holiday ${at + 1} name`}
              maxLength={100}
              placeholder="e.g. New Year's Day"
              value={holiday.name}
              aria-invalid={errors[`holidays.${at}.name`] ? true : undefined}
              onChange={(e) => set({ holidays: draft.holidays.map((one) => (one.key === holiday.key ? { ...one, name: e.target.value } : one)) })}
            />
            <button
              type="button"
              className="icon-button"
              aria-label={`Remove holiday ${at + 1}`}
              title="Remove holiday"
              onClick={() => set({ holidays: draft.holidays.filter((one) => one.key !== holiday.key) })}
            >
              <Icon name="trash" size={14} />
            </button>
            {problem(`holidays.${at}.date`) || problem(`holidays.${at}.name`)}
          </div>
        ))}
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => set({ holidays: [...draft.holidays, { key: rowKey(), date: '', name: '' }] })}
        >
          <Icon name="plus" size={14} /> Add Holiday
        </button>
      </fieldset>

      <FormActions saving={saving} submitLabel={calendar ? 'Update Calendar' : 'Create Calendar'} onCancel={onCancel} />
    </form>
  );
}
