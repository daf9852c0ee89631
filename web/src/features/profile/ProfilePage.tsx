import { useState } from 'react';
import { isStaff } from '#contract/users';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { Banner, Card, LoadingScreen } from '../../components/ui';
import { initialsOf } from '../../lib/format';
import { type NotificationPreferences, usePreferencesQuery, useSavePreferencesMutation } from './api';
import { type Role, selectUser } from '../../entities/session/sessionSlice';
import { notificationsSupported, writeLocalSettings } from './notificationSettings';

/** docs/product.md section 6: what each role may do, in its words. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  customer: 'Can create and view own tickets',
  agent: 'Can manage tickets and respond to customers',
  admin: 'Full system access and user management',
};

export const PERMISSION_NEEDED = 'Please enable browser notifications to use this feature.';
export const SAVE_FAILED = 'Failed to save notification settings. Please try again.';

const TOGGLES: Array<{ key: keyof NotificationPreferences; label: string; hint: string }> = [
  { key: 'newTickets', label: 'New tickets', hint: 'Notify me when a customer opens a ticket' },
  { key: 'ticketUpdates', label: 'Ticket updates', hint: 'Notify me when a ticket changes status' },
  { key: 'browserNotifications', label: 'Browser notifications', hint: 'Show notifications on this desktop' },
  { key: 'mentionEmails', label: 'E-mail me when I am mentioned', hint: 'A colleague names me with @ in an internal note' },
];

/** Asks the browser for permission when needed; true when notifications may be shown. */
async function browserPermission(): Promise<boolean> {
  if (!notificationsSupported()) return false;
  if (Notification.permission === 'granted') return true;
  if (Notification.permission === 'denied') return false;
  return (await Notification.requestPermission()) === 'granted';
}

export function NotificationSettings({
  preferences,
  onSave,
}: {
  preferences: NotificationPreferences;
  onSave: (next: NotificationPreferences) => Promise<boolean>;
}) {
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const toggle = async (key: keyof NotificationPreferences, on: boolean) => {
    setError(null);
    if (key === 'browserNotifications' && on && !(await browserPermission())) return setError(PERMISSION_NEEDED);
    setSaving(true);
    const saved = await onSave({ ...preferences, [key]: on });
    setSaving(false);
    if (!saved) setError(SAVE_FAILED);
  };
  return (
    <Card title="Notification Settings">
      {error && <Banner kind="error">{error}</Banner>}
      <ul className="settings-list">
        {TOGGLES.map((toggleDef) => (
          <li key={toggleDef.key}>
            <label className="switch-row">
              <span>
                <strong>{toggleDef.label}</strong>
                <span className="muted small">{toggleDef.hint}</span>
              </span>
              <input
                type="checkbox"
                role="switch"
                className="switch"
                checked={preferences[toggleDef.key]}
                disabled={saving}
                onChange={(e) => void toggle(toggleDef.key, e.target.checked)}
              />
            </label>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function ProfilePage() {
  const user = useAppSelector(selectUser)!;
  const staff = isStaff(user.role);
  const dispatch = useAppDispatch();
  const preferences = usePreferencesQuery(undefined, { skip: !staff });
  const [savePreferences] = useSavePreferencesMutation();
  const save = async (next: NotificationPreferences) => {
    try {
      const { notificationPreferences } = await savePreferences(next).unwrap();
      writeLocalSettings(notificationPreferences);
      dispatch(toastShown('success', 'Notification settings saved'));
      return true;
    } catch {
      return false;
    }
  };
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>User Profile</h1>
          <p className="muted">Your account details</p>
        </div>
      </header>
      <div className="profile-grid">
        <Card title="Personal Information">
          <div className="profile-head">
            <span className="avatar avatar-large" aria-hidden="true">
              {initialsOf(user.firstName, user.lastName)}
            </span>
            <div>
              <strong>
                {user.firstName} {user.lastName}
              </strong>
              <p className="muted small">{ROLE_DESCRIPTIONS[user.role]}</p>
            </div>
          </div>
          <div className="form-grid">
            {[
              ['profile-first', 'First name', user.firstName],
              ['profile-last', 'Last name', user.lastName],
              ['profile-email', 'Email', user.email],
              ['profile-role', 'Role', user.role],
            ].map(([id, label, value]) => (
              <div className="field" key={id}>
                <label htmlFor={id}>{label}</label>
                <input id={id} value={value} readOnly />
              </div>
            ))}
          </div>
        </Card>
        {staff &&
          (preferences.data ? (
            <NotificationSettings preferences={preferences.data.notificationPreferences} onSave={save} />
          ) : preferences.isError ? (
            <Banner kind="error">Failed to load data</Banner>
          ) : (
            <LoadingScreen text="Loading notification settings..." />
          ))}
      </div>
    </div>
  );
}
