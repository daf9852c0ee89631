import { SLA_TARGETS, SLA_TARGET_WORDS } from '#contract/sla';
import { PRIORITIES } from '#contract/tickets';
import { FormActions, TextField } from '../../components/ui';
import type { FieldErrors } from '../../lib/validation';
import { RecordErrors, useRecordDraft } from './RecordForm';
import { PRIORITY_WORDS, type PolicyDraft, type SlaCalendar, type SlaPolicy, policyDraft } from './settingsDraft';

/**
 * One policy of docs/sla.md: its name, the category it is for (or every other one), the calendar
 * whose business hours count (or around the clock), and per priority the first response, next
 * response and resolution targets in hours and minutes (both blank leaves a target out).
 */
export function PolicyForm({
  policy,
  calendars,
  defaultCalendarId,
  categories,
  saving,
  error,
  check,
  onSubmit,
  onCancel,
}: {
  policy: SlaPolicy | null;
  calendars: SlaCalendar[];
  defaultCalendarId: string | null;
  categories: Array<{ _id: string; name: string }>;
  saving: boolean;
  error: string | null;
  check: (draft: PolicyDraft) => FieldErrors;
  onSubmit: (draft: PolicyDraft) => void;
  onCancel: () => void;
}) {
  const { draft, set, errors, submit, problem } = useRecordDraft(() => policyDraft(policy, defaultCalendarId), check, onSubmit);
  // A category that was deleted since still shows, so the admin sees why the server refuses it.
  const categoryOptions =
    draft.categoryId && !categories.some((category) => category._id === draft.categoryId)
      ? [...categories, { _id: draft.categoryId, name: `${draft.categoryId} (deleted)` }]
      : categories;

  return (
    <form className="form" onSubmit={submit} noValidate>
      <RecordErrors error={error} errors={errors} />
      <TextField id="policy-name" label="Name" maxLength={100} value={draft.name} error={errors.name} onChange={(name) => set({ name })} />
      <div className="form-row">
        <div className="field">
          <label htmlFor="policy-category">Applies to</label>
          <select id="policy-category" value={draft.categoryId} onChange={(e) => set({ categoryId: e.target.value })}>
            <option value="">Every category without a policy of its own</option>
            {categoryOptions.map((category) => (
              <option key={category._id} value={category._id}>
                Category: {category.name}
              </option>
            ))}
          </select>
          {problem('categoryId')}
        </div>
        <div className="field">
          <label htmlFor="policy-calendar">Counts in</label>
          <select id="policy-calendar" value={draft.calendarId} onChange={(e) => set({ calendarId: e.target.value })}>
            <option value="">Around the clock</option>
            {calendars.map((calendar) => (
              <option key={calendar.id} value={calendar.id}>
                Business hours of {calendar.name}
              </option>
            ))}
          </select>
          {problem('calendarId')}
        </div>
      </div>

      <fieldset className="custom-fields">
        <legend>Targets</legend>
        <p className="hint">
          Hours and minutes from the opening (first response), from each customer message after a reply (next response), and to the resolution. Leave both boxes
          blank to set no target.
        </p>
        {problem('targets')}
        <div className="table-wrap">
          <table className="table sla-targets" aria-label="Targets">
            <thead>
              <tr>
                <th>Priority</th>
                {SLA_TARGETS.map((target) => (
                  <th key={target}>{SLA_TARGET_WORDS[target]}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {PRIORITIES.map((priority) => (
                <tr key={priority}>
                  <th scope="row">{PRIORITY_WORDS[priority]}</th>
                  {SLA_TARGETS.map((target) => {
                    const value = draft.targets[priority][target];
                    const update = (patch: Partial<typeof value>) =>
                      set({ targets: { ...draft.targets, [priority]: { ...draft.targets[priority], [target]: { ...value, ...patch } } } });
                    const label = `${PRIORITY_WORDS[priority]} ${SLA_TARGET_WORDS[target].toLowerCase()}`;
                    const path = `targets.${priority}.${target}`;
                    return (
                      <td key={target}>
                        <div className="sla-duration">
                          <input
                            type="number"
                            min={0}
                            step={1}
                            aria-label={`${label} hours`}
                            value={value.hours}
                            aria-invalid={errors[path] ? true : undefined}
                            onChange={(e) => update({ hours: e.target.value })}
                          />
                          <span>h</span>
                          <input
                            type="number"
                            min={0}
                            max={59}
                            step={1}
                            aria-label={`${label} minutes`}
                            value={value.minutes}
                            aria-invalid={errors[path] ? true : undefined}
                            onChange={(e) => update({ minutes: e.target.value })}
                          />
                          <span>m</span>
                        </div>
                        {problem(path)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </fieldset>

      <FormActions saving={saving} submitLabel={policy ? 'Update Policy' : 'Create Policy'} onCancel={onCancel} />
    </form>
  );
}
