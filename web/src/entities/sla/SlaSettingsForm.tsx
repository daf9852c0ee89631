import { type FormEvent, useState } from 'react';
import { type SlaSettings, slaSettingsSchema } from '#contract/sla';
import { STATUS_WORDS, type TicketStatus } from '#contract/tickets';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { toastShown } from '../../components/toastsSlice';
import { Badge, Banner, Card, DataTable, RowEditDelete } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { type FieldErrors, checkWith } from '../../lib/validation';
import { type SlaSettingsView, useSlaSettingsQuery, useUpdateSlaSettingsMutation } from './api';
import { CalendarForm } from './CalendarForm';
import { PolicyForm } from './PolicyForm';
import {
  type CalendarDraft,
  type PolicyDraft,
  type SlaCalendar,
  type SlaPolicy,
  PRIORITY_WORDS,
  calendarOf,
  newId,
  policyOf,
  recordErrors,
  targetText,
  weeklyHours,
  withCalendar,
  withPolicy,
  withoutCalendar,
  withoutPolicy,
} from './settingsDraft';

type Category = { _id: string; name: string };

/** The statuses that may pause the clocks (the schema allows these two). */
const PAUSABLE: TicketStatus[] = ['in_progress', 'pending_customer'];

const settingsOnly = ({ calendars, defaultCalendarId, policies, pauseStatuses, warnPercent }: SlaSettingsView): SlaSettings => ({
  calendars,
  defaultCalendarId,
  policies,
  pauseStatuses,
  warnPercent,
});

/** When the clocks stand still and when the warning goes out: the settings every policy shares. */
export function ClocksForm({ document, save, saving }: { document: SlaSettings; save: (next: SlaSettings) => Promise<unknown>; saving: boolean }) {
  const [pauseStatuses, setPauseStatuses] = useState(document.pauseStatuses);
  const [warnPercent, setWarnPercent] = useState(String(document.warnPercent));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const checked = checkWith(slaSettingsSchema, { ...document, pauseStatuses, warnPercent: warnPercent.trim() === '' ? Number.NaN : Number(warnPercent) });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    try {
      await save(checked.data);
      setNotice({ kind: 'success', text: 'Clock settings saved' });
    } catch (failure) {
      setNotice({ kind: 'error', text: errorMessage(failure, 'Failed to save the clock settings') });
    }
  };
  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate aria-label="Clocks">
      {notice && <Banner kind={notice.kind}>{notice.text}</Banner>}
      <fieldset className="custom-fields">
        <legend>Every clock stands still while the ticket is</legend>
        {PAUSABLE.map((status) => (
          <label key={status} className="toggle">
            <input
              type="checkbox"
              checked={pauseStatuses.includes(status)}
              onChange={(e) => setPauseStatuses(e.target.checked ? [...pauseStatuses, status] : pauseStatuses.filter((one) => one !== status))}
            />
            {STATUS_WORDS[status]}
          </label>
        ))}
        {errors.pauseStatuses && <span className="field-error">{errors.pauseStatuses}</span>}
      </fieldset>
      <div className="field">
        <label htmlFor="sla-warn-percent">Warn the agent at (% of the target)</label>
        <input
          id="sla-warn-percent"
          type="number"
          min={1}
          max={99}
          step={1}
          value={warnPercent}
          aria-invalid={errors.warnPercent ? true : undefined}
          onChange={(e) => setWarnPercent(e.target.value)}
        />
        {errors.warnPercent && <span className="field-error">{errors.warnPercent}</span>}
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving}>
          {saving ? 'Saving...' : 'Save Clock Settings'}
        </button>
      </div>
    </form>
  );
}

/**
 * The calendars and policies, each added, edited and deleted in its own dialog. Every save sends the
 * whole document to the server (one versioned `SlaSettingsUpdated`), after checking it with the
 * server's own schema; tickets keep the version they opened under (docs/sla.md).
 */
function SlaSettingsEditor({ settings, categories }: { settings: SlaSettingsView; categories: Category[] }) {
  const dispatch = useAppDispatch();
  const [update, saving] = useUpdateSlaSettingsMutation();
  const document = settingsOnly(settings);
  const save = (next: SlaSettings) => update(next).unwrap();
  const notify = (kind: 'success' | 'error', text: string) => dispatch(toastShown(kind, text));

  const calendarIndex = (calendar: SlaCalendar | null) => (calendar ? document.calendars.findIndex((one) => one.id === calendar.id) : null);
  const calendarId = (calendar: SlaCalendar | null, draft: CalendarDraft) =>
    calendar?.id ??
    newId(
      draft.name,
      document.calendars.map((one) => one.id),
      'calendar',
    );
  const nextWithCalendar = (calendar: SlaCalendar | null, draft: CalendarDraft) =>
    withCalendar(document, calendarIndex(calendar), calendarOf(draft, calendarId(calendar, draft)), draft.isDefault);
  const calendars = useListEditor<SlaCalendar, CalendarDraft>({
    create: (draft) => save(nextWithCalendar(null, draft)),
    update: (calendar, draft) => save(nextWithCalendar(calendar, draft)),
    remove: (calendar) => save(withoutCalendar(document, calendar.id)),
    notify,
    texts: {
      created: 'Calendar created',
      updated: 'Calendar updated',
      deleted: 'Calendar deleted',
      saveFailed: 'Failed to save the calendar',
      deleteFailed: 'Failed to delete the calendar',
    },
  });

  const policyIndex = (policy: SlaPolicy | null) => (policy ? document.policies.findIndex((one) => one.id === policy.id) : null);
  const policyId = (policy: SlaPolicy | null, draft: PolicyDraft) =>
    policy?.id ??
    newId(
      draft.name,
      document.policies.map((one) => one.id),
      'policy',
    );
  const nextWithPolicy = (policy: SlaPolicy | null, draft: PolicyDraft) => withPolicy(document, policyIndex(policy), policyOf(draft, policyId(policy, draft)));
  const policies = useListEditor<SlaPolicy, PolicyDraft>({
    create: (draft) => save(nextWithPolicy(null, draft)),
    update: (policy, draft) => save(nextWithPolicy(policy, draft)),
    remove: (policy) => save(withoutPolicy(document, policy.id)),
    notify,
    texts: {
      created: 'Policy created',
      updated: 'Policy updated',
      deleted: 'Policy deleted',
      saveFailed: 'Failed to save the policy',
      deleteFailed: 'Failed to delete the policy',
    },
  });

  const calendarName = (id: string | null) => (id === null ? 'Around the clock' : (document.calendars.find((one) => one.id === id)?.name ?? id));
  const categoryName = (id: string | null) => (id === null ? 'Every other category' : (categories.find((one) => one._id === id)?.name ?? id));

  return (
    <div className="form">
      <p className="muted small">
        Version {settings.version}
        {settings.updatedAt ? `, saved ${formatDateTime(settings.updatedAt)}` : ''}. Each save is a new version: a ticket follows the version it opened under.
      </p>

      <div className="toolbar">
        <h3>Calendars</h3>
        <button type="button" className="button button-primary" onClick={() => calendars.setEditing('new')}>
          <Icon name="plus" size={16} /> Add Calendar
        </button>
      </div>
      {document.calendars.length === 0 ? (
        <p className="muted small">No calendars: every policy counts around the clock.</p>
      ) : (
        <DataTable label="Calendars" columns={['Name', 'Time zone', 'Business hours', 'Holidays', 'Actions']}>
          {document.calendars.map((calendar) => {
            const user = document.policies.find((policy) => policy.calendarId === calendar.id);
            return (
              <tr key={calendar.id}>
                <td>
                  <strong>{calendar.name}</strong> {calendar.id === document.defaultCalendarId && <Badge variant="secondary">Default</Badge>}
                </td>
                <td>{calendar.timeZone}</td>
                <td>{weeklyHours(calendar)}</td>
                <td>{calendar.holidays.length === 0 ? 'None' : calendar.holidays.map((holiday) => `${holiday.date} ${holiday.name}`).join(', ')}</td>
                <td>
                  <RowEditDelete
                    name={`calendar ${calendar.name}`}
                    what="calendar"
                    onEdit={() => calendars.setEditing(calendar)}
                    onDelete={() => calendars.setDeleting(calendar)}
                    deleteRefusal={user ? `The policy ${user.name} counts in this calendar` : null}
                  />
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}

      <div className="toolbar">
        <h3>Policies</h3>
        <button type="button" className="button button-primary" onClick={() => policies.setEditing('new')}>
          <Icon name="plus" size={16} /> Add Policy
        </button>
      </div>
      {document.policies.length === 0 ? (
        <p className="muted small">No policies: tickets have no service-level targets.</p>
      ) : (
        <DataTable label="Policies" columns={['Name', 'Applies to', 'Counts in', 'Targets (first / next response / resolution)', 'Actions']}>
          {document.policies.map((policy) => (
            <tr key={policy.id}>
              <td>
                <strong>{policy.name}</strong>
              </td>
              <td>{categoryName(policy.categoryId)}</td>
              <td>{calendarName(policy.calendarId)}</td>
              <td className="small">
                {(['urgent', 'high', 'medium', 'low'] as const).map((priority) => {
                  const targets = policy.targets[priority];
                  return (
                    <div key={priority}>
                      {PRIORITY_WORDS[priority]}: {targetText(targets.firstResponse)} / {targetText(targets.nextResponse)} / {targetText(targets.resolution)}
                    </div>
                  );
                })}
              </td>
              <td>
                <RowEditDelete
                  name={`policy ${policy.name}`}
                  what="policy"
                  onEdit={() => policies.setEditing(policy)}
                  onDelete={() => policies.setDeleting(policy)}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <h3>Clocks</h3>
      <ClocksForm key={settings.version} document={document} save={save} saving={saving.isLoading} />

      <ListEditorDialogs
        editor={calendars}
        titles={{ add: 'Add Calendar', edit: 'Edit Calendar' }}
        confirmMessage="Delete this calendar? Tickets already open keep the hours they follow."
        saving={saving.isLoading}
        removing={saving.isLoading}
        wide
        form={({ record, ...dialog }) => {
          const index = calendarIndex(record);
          return (
            <CalendarForm
              calendar={record}
              isDefault={record ? record.id === document.defaultCalendarId : document.calendars.length === 0}
              defaultLocked={record ? record.id === document.defaultCalendarId : document.calendars.length === 0}
              check={(draft) => recordErrors(nextWithCalendar(record, draft), `calendars.${index ?? document.calendars.length}`)}
              {...dialog}
            />
          );
        }}
      />
      <ListEditorDialogs
        editor={policies}
        titles={{ add: 'Add Policy', edit: 'Edit Policy' }}
        confirmMessage="Delete this policy? Tickets already open keep the targets they follow."
        saving={saving.isLoading}
        removing={saving.isLoading}
        wide
        form={({ record, ...dialog }) => {
          const index = policyIndex(record);
          return (
            <PolicyForm
              policy={record}
              calendars={document.calendars}
              defaultCalendarId={document.defaultCalendarId}
              categories={categories}
              check={(draft) => recordErrors(nextWithPolicy(record, draft), `policies.${index ?? document.policies.length}`)}
              {...dialog}
            />
          );
        }}
      />
    </div>
  );
}

/** The admin's group of calendars and policies on the System Settings page; the categories are those a policy may be for. */
export function SlaSettingsGroup({ categories }: { categories: Category[] }) {
  const { data, error } = useSlaSettingsQuery();
  return (
    <Card title="Service Levels">
      {error && <Banner kind="error">{errorMessage(error, 'Failed to load the service levels')}</Banner>}
      {data && <SlaSettingsEditor settings={data} categories={categories} />}
    </Card>
  );
}
