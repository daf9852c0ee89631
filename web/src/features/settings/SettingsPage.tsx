import { type FormEvent, type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import {
  type MailboxAfterFetch,
  type MailboxTest,
  NO_MAILBOX_MESSAGE,
  NO_TOKEN_MESSAGE,
  SETTINGS_BOUNDS,
  type UnknownSenders,
  updateSettingsSchema,
} from '#contract/settings';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { AccessDenied, Banner, Card, FlashBanner, LoadingScreen, PageHeader } from '../../components/ui';
import { type Flash, useFlash } from '../../lib/flash';
import { type FieldErrors, checkWith } from '../../lib/validation';
import { selectUser } from '../../entities/session/sessionSlice';
import { SatisfactionSettingsGroup } from '../../entities/satisfaction/SatisfactionSettingsForm';
import { SlaSettingsGroup } from '../../entities/sla/SlaSettingsForm';
import { useCategoriesQuery } from '../../entities/ticket/api';
import type { Category } from '../../entities/ticket/types';
import { type SettingsInput, type SystemSettings, useSaveSettingsMutation, useSystemSettingsQuery, useTestBotMutation, useTestMailboxMutation } from './api';

const MB = 1024 * 1024;
const MINUTE = 60 * 1000;
/** docs/product.md section 8: the settings messages vanish after 5 s. */
export const SETTINGS_MESSAGE_MS = 5000;

interface Draft {
  telegramBotToken: string;
  telegramWebhookUrl: string;
  systemName: string;
  supportEmail: string;
  corsOrigins: string;
  emailNotifications: boolean;
  maintenanceMode: boolean;
  maxFileSizeMb: string;
  maxFiles: string;
  rateLimitWindowMinutes: string;
  rateLimitMaxRequests: string;
  idleAwayMinutes: string;
  offlineGraceSeconds: string;
  mailboxHost: string;
  mailboxPort: string;
  mailboxTls: boolean;
  mailboxUser: string;
  mailboxPassword: string;
  mailboxFolder: string;
  mailboxAfterFetch: MailboxAfterFetch;
  mailboxMoveTo: string;
  mailboxUnknownSenders: UnknownSenders;
  mailboxCategory: string;
}

const toDraft = (settings: SystemSettings): Draft => ({
  telegramBotToken: settings.telegramBotToken,
  telegramWebhookUrl: settings.telegramWebhookUrl,
  systemName: settings.systemName,
  supportEmail: settings.supportEmail,
  corsOrigins: settings.corsOrigins.join(', '),
  emailNotifications: settings.emailNotifications,
  maintenanceMode: settings.maintenanceMode,
  maxFileSizeMb: String(+(settings.maxFileSize / MB).toFixed(2)),
  maxFiles: String(settings.maxFiles),
  rateLimitWindowMinutes: String(+(settings.rateLimitWindowMs / MINUTE).toFixed(2)),
  rateLimitMaxRequests: String(settings.rateLimitMaxRequests),
  idleAwayMinutes: String(settings.idleAwayMinutes),
  offlineGraceSeconds: String(settings.offlineGraceSeconds),
  mailboxHost: settings.mailboxHost,
  mailboxPort: String(settings.mailboxPort),
  mailboxTls: settings.mailboxTls,
  mailboxUser: settings.mailboxUser,
  mailboxPassword: settings.mailboxPassword,
  mailboxFolder: settings.mailboxFolder,
  mailboxAfterFetch: settings.mailboxAfterFetch,
  mailboxMoveTo: settings.mailboxMoveTo,
  mailboxUnknownSenders: settings.mailboxUnknownSenders,
  mailboxCategory: settings.mailboxCategory,
});

/** A blank box is not a number; the schema then says '... must be a number'. */
const numberOf = (text: string, scale = 1) => (text.trim() === '' ? Number.NaN : Math.round(Number(text) * scale));

/** The form in the API's units: megabytes become bytes and minutes milliseconds (docs/product.md section 5). */
export const toSettingsInput = (draft: Draft): SettingsInput => ({
  telegramBotToken: draft.telegramBotToken.trim(),
  telegramWebhookUrl: draft.telegramWebhookUrl,
  systemName: draft.systemName,
  supportEmail: draft.supportEmail,
  corsOrigins: draft.corsOrigins
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean),
  emailNotifications: draft.emailNotifications,
  maintenanceMode: draft.maintenanceMode,
  maxFileSize: numberOf(draft.maxFileSizeMb, MB),
  maxFiles: numberOf(draft.maxFiles),
  rateLimitWindowMs: numberOf(draft.rateLimitWindowMinutes, MINUTE),
  rateLimitMaxRequests: numberOf(draft.rateLimitMaxRequests),
  idleAwayMinutes: numberOf(draft.idleAwayMinutes),
  offlineGraceSeconds: numberOf(draft.offlineGraceSeconds),
  ...mailboxOf(draft),
  mailboxAfterFetch: draft.mailboxAfterFetch,
  mailboxMoveTo: draft.mailboxMoveTo,
  mailboxUnknownSenders: draft.mailboxUnknownSenders,
  mailboxCategory: draft.mailboxCategory,
});

/** The mailbox as typed: what "Test Connection" tries and what is saved. */
const mailboxOf = (draft: Draft): Required<MailboxTest> => ({
  mailboxHost: draft.mailboxHost.trim(),
  mailboxPort: numberOf(draft.mailboxPort),
  mailboxTls: draft.mailboxTls,
  mailboxUser: draft.mailboxUser.trim(),
  mailboxPassword: draft.mailboxPassword,
  mailboxFolder: draft.mailboxFolder.trim(),
});

/** Where each of the API's field names is typed on this form. */
const INPUT_OF: Record<string, keyof Draft> = { maxFileSize: 'maxFileSizeMb', rateLimitWindowMs: 'rateLimitWindowMinutes' };
const byInput = (errors: FieldErrors) =>
  Object.fromEntries(Object.entries(errors).map(([path, message]) => [INPUT_OF[path.split('.')[0]!] ?? path.split('.')[0]!, message]));

export interface SettingsActions {
  /** Resolves with the settings as stored (the token masked again), or with the error text and the fields at fault. */
  save: (input: SettingsInput) => Promise<{ saved: SystemSettings } | { error: string; fields: FieldErrors }>;
  test: (token: string) => Promise<Flash>;
  testMailbox: (mailbox: MailboxTest) => Promise<Flash>;
}

function Group({ title, icon, children }: { title: string; icon: Parameters<typeof Icon>[0]['name']; children: ReactNode }) {
  return (
    <Card
      title={
        <>
          <Icon name={icon} size={18} /> {title}
        </>
      }
    >
      <div className="form">{children}</div>
    </Card>
  );
}

/**
 * System Settings of docs/product.md sections 2 and 5: Telegram Bot Integration (with the bot test, which
 * needs a token first), System Configuration, File Upload Settings (1 to 100 MB, 1 to 20 files) and
 * Rate Limiting (1 to 60 minutes, 1 to 1000 requests), checked with the API's own schema.
 */
export function SettingsForm({
  settings,
  actions,
  categories = [],
}: {
  settings: SystemSettings;
  actions: SettingsActions;
  /** The active categories, for "Category for new mail". */
  categories?: Category[];
}) {
  const [draft, setDraft] = useState<Draft>(() => toDraft(settings));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [testingMailbox, setTestingMailbox] = useState(false);
  const { flash, show } = useFlash(SETTINGS_MESSAGE_MS);
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = toSettingsInput(draft);
    const checked = checkWith(updateSettingsSchema, input);
    if (!checked.ok) {
      setErrors(byInput(checked.errors));
      return show('error', 'Failed to save settings: please correct the fields marked below.');
    }
    setErrors({});
    setSaving(true);
    const result = await actions.save(input);
    setSaving(false);
    if ('error' in result) {
      setErrors(byInput(result.fields));
      return show('error', result.error);
    }
    setDraft(toDraft(result.saved));
    show('success', 'Settings saved successfully!');
  };
  const test = async () => {
    if (!draft.telegramBotToken.trim()) return show('error', NO_TOKEN_MESSAGE);
    setTesting(true);
    const result = await actions.test(draft.telegramBotToken.trim());
    setTesting(false);
    show(result.kind, result.text);
  };

  const testMailbox = async () => {
    if (!draft.mailboxHost.trim()) return show('error', NO_MAILBOX_MESSAGE);
    setTestingMailbox(true);
    const result = await actions.testMailbox(mailboxOf(draft));
    setTestingMailbox(false);
    show(result.kind, result.text);
  };

  const text = (name: keyof Draft, label: string, props: Record<string, unknown> = {}, hint?: string) => (
    <div className="field">
      <label htmlFor={`settings-${name}`}>{label}</label>
      <input
        id={`settings-${name}`}
        value={draft[name] as string}
        aria-invalid={errors[name] ? true : undefined}
        onChange={(e) => set({ [name]: e.target.value })}
        {...props}
      />
      {errors[name] ? <span className="field-error">{errors[name]}</span> : hint && <span className="hint">{hint}</span>}
    </div>
  );
  const choice = <Name extends 'mailboxAfterFetch' | 'mailboxUnknownSenders' | 'mailboxCategory'>(
    name: Name,
    label: string,
    options: Array<[Draft[Name], string]>,
  ) => (
    <div className="field">
      <label htmlFor={`settings-${name}`}>{label}</label>
      <select id={`settings-${name}`} value={draft[name]} aria-invalid={errors[name] ? true : undefined} onChange={(e) => set({ [name]: e.target.value })}>
        {options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
      {errors[name] && <span className="field-error">{errors[name]}</span>}
    </div>
  );
  const toggle = (name: 'emailNotifications' | 'maintenanceMode' | 'mailboxTls', label: string, hint: string) => (
    <label className="switch-row">
      <span>
        {label}
        <small className="muted">{hint}</small>
      </span>
      <input type="checkbox" role="switch" className="switch" checked={draft[name]} onChange={(e) => set({ [name]: e.target.checked })} />
    </label>
  );
  const { maxFileSize, maxFiles, rateLimitWindowMs, rateLimitMaxRequests, idleAwayMinutes, offlineGraceSeconds } = SETTINGS_BOUNDS;

  return (
    <form onSubmit={(event) => void submit(event)} noValidate className="settings-form">
      <div className="settings-flash" aria-live="polite">
        <FlashBanner flash={flash} />
      </div>
      <Group title="Telegram Bot Integration" icon="telegram">
        {text(
          'telegramBotToken',
          'Bot Token',
          { autoComplete: 'off', spellCheck: false, placeholder: '123456789:ABC-DEF...' },
          'From @BotFather. The stored token is shown masked; leave it as it is to keep it, or clear it to turn the bot off.',
        )}
        {text(
          'telegramWebhookUrl',
          'Webhook URL',
          { type: 'url', placeholder: 'https://support.example.com/api/telegram/webhook' },
          'Optional. Leave empty to let the bot poll Telegram.',
        )}
        <div className="inline-actions">
          <button type="button" className="button button-secondary" disabled={testing} onClick={() => void test()}>
            <Icon name="bolt" size={16} /> {testing ? 'Testing...' : 'Test Bot'}
          </button>
          <Link to="/telegram-whitelist" className="button button-ghost">
            <Icon name="user" size={16} /> Manage Telegram Whitelist
          </Link>
        </div>
      </Group>
      <Group title="System Configuration" icon="settings">
        {text('systemName', 'System Name', { maxLength: 100 })}
        {text('supportEmail', 'Support Email', { type: 'email', placeholder: 'support@example.com' })}
        {text(
          'corsOrigins',
          'CORS Origins',
          { placeholder: 'https://app.example.com, https://admin.example.com' },
          'Comma-separated origins allowed to call the API from other sites. Leave empty for same-site only.',
        )}
        {toggle('emailNotifications', 'Email Notifications', 'Send e-mails about new replies and status changes')}
        {toggle('maintenanceMode', 'Maintenance Mode', 'Only administrators can use the desk while it is on')}
      </Group>
      <Group title="E-mail Channel (Support Mailbox)" icon="send">
        <p className="hint">Customers write to the Support Email above; the desk reads this mailbox over IMAP (see docs/email.md).</p>
        <div className="form-row">
          {text(
            'mailboxHost',
            'IMAP Host',
            { autoComplete: 'off', spellCheck: false, placeholder: 'imap.example.com' },
            'Leave empty to turn the e-mail channel off.',
          )}
          {text('mailboxPort', 'Port', { type: 'number', min: 1, max: 65535, step: 1 }, '993 with TLS, 143 without')}
        </div>
        {toggle('mailboxTls', 'Use TLS', 'Connect over TLS (IMAPS)')}
        <div className="form-row">
          {text('mailboxUser', 'User', { autoComplete: 'off', spellCheck: false })}
          {text(
            'mailboxPassword',
            'Password',
            { type: 'password', autoComplete: 'new-password' },
            'Never shown again once saved; leave the dots to keep it. For Gmail and Microsoft 365 use an app password.',
          )}
        </div>
        <div className="form-row">
          {text('mailboxFolder', 'Folder', { spellCheck: false })}
          {choice('mailboxAfterFetch', 'After Fetching', [
            ['seen', 'Mark as read'],
            ['move', 'Move to a folder'],
          ])}
          {draft.mailboxAfterFetch === 'move' && text('mailboxMoveTo', 'Move To Folder', { spellCheck: false })}
        </div>
        {choice('mailboxUnknownSenders', 'Mail From Unknown Senders', [
          ['create', 'Create a customer account'],
          ['refuse', 'Refuse (listed in Deliveries)'],
        ])}
        {choice('mailboxCategory', 'Category for New Mail', [
          ['', 'The first active category'],
          ...categories.filter((category) => category.isActive !== false).map((category): [string, string] => [category._id, category.name]),
        ])}
        <div className="inline-actions">
          <button type="button" className="button button-secondary" disabled={testingMailbox} onClick={() => void testMailbox()}>
            <Icon name="bolt" size={16} /> {testingMailbox ? 'Testing...' : 'Test Connection'}
          </button>
        </div>
      </Group>
      <Group title="File Upload Settings" icon="paperclip">
        <div className="form-row">
          {text(
            'maxFileSizeMb',
            'Max File Size (MB)',
            { type: 'number', min: maxFileSize.min / MB, max: maxFileSize.max / MB, step: 'any' },
            `Between ${maxFileSize.min / MB} and ${maxFileSize.max / MB} MB`,
          )}
          {text(
            'maxFiles',
            'Max Files per Message',
            { type: 'number', min: maxFiles.min, max: maxFiles.max, step: 1 },
            `Between ${maxFiles.min} and ${maxFiles.max}`,
          )}
        </div>
      </Group>
      <Group title="Rate Limiting" icon="clock">
        <div className="form-row">
          {text(
            'rateLimitWindowMinutes',
            'Window (minutes)',
            { type: 'number', min: rateLimitWindowMs.min / MINUTE, max: rateLimitWindowMs.max / MINUTE, step: 1 },
            `Between ${rateLimitWindowMs.min / MINUTE} and ${rateLimitWindowMs.max / MINUTE} minutes`,
          )}
          {text(
            'rateLimitMaxRequests',
            'Max Requests per Window',
            { type: 'number', min: rateLimitMaxRequests.min, max: rateLimitMaxRequests.max, step: 1 },
            // The count is of changes; reads may be ten times as many (docs/settings.md, "How the rate limit counts").
            `Changes per person in a window, between ${rateLimitMaxRequests.min} and ${rateLimitMaxRequests.max}; reads may be ten times as many`,
          )}
        </div>
      </Group>
      <Group title="Agent Availability" icon="clock">
        <div className="form-row">
          {text(
            'idleAwayMinutes',
            'Set agents Away after N minutes without activity',
            { type: 'number', min: idleAwayMinutes.min, max: idleAwayMinutes.max, step: 1 },
            `0 never; at most ${idleAwayMinutes.max} minutes`,
          )}
          {text(
            'offlineGraceSeconds',
            "Return an offline agent's tickets after N seconds",
            { type: 'number', min: 0, max: offlineGraceSeconds.max, step: 1 },
            `0 never, else ${offlineGraceSeconds.min} seconds to 7 days; the tickets go back to their team and are assigned again`,
          )}
        </div>
      </Group>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving}>
          {saving ? 'Saving...' : 'Save Settings'}
        </button>
      </div>
    </form>
  );
}

const detailsOf = (failure: unknown): FieldErrors => {
  const details = (failure as { data?: { details?: Array<{ path: string; message: string }> } }).data?.details ?? [];
  return Object.fromEntries(details.map((detail) => [detail.path, detail.message]));
};

export function SettingsPage() {
  const user = useAppSelector(selectUser);
  const admin = user?.role === 'admin';
  const { data, error, isLoading } = useSystemSettingsQuery(undefined, { skip: !admin });
  const [saveSettings] = useSaveSettingsMutation();
  const [testBot] = useTestBotMutation();
  const [testMailbox] = useTestMailboxMutation();
  const categories = useCategoriesQuery(undefined, { skip: !admin });
  if (!admin) return <AccessDenied>Access Denied: You must be an administrator to access system settings.</AccessDenied>;

  const actions: SettingsActions = {
    save: async (input) => {
      try {
        return { saved: (await saveSettings(input).unwrap()).settings };
      } catch (failure) {
        return { error: errorMessage(failure, 'Failed to save settings'), fields: detailsOf(failure) };
      }
    },
    test: async (telegramBotToken) => {
      try {
        const result = await testBot({ telegramBotToken }).unwrap();
        return result.success
          ? { kind: 'success', text: 'Telegram bot is working correctly!' }
          : { kind: 'error', text: `Telegram bot test failed: ${result.error ?? 'unknown error'}` };
      } catch (failure) {
        return { kind: 'error', text: `Failed to test bot: ${errorMessage(failure, 'no answer from the server')}` };
      }
    },
    testMailbox: async (mailbox) => {
      try {
        const result = await testMailbox(mailbox).unwrap();
        return result.success
          ? { kind: 'success', text: `Mailbox connection works: ${result.folder} holds ${result.messages} message(s).` }
          : { kind: 'error', text: `Mailbox connection failed: ${result.error}` };
      } catch (failure) {
        return { kind: 'error', text: `Failed to test the mailbox: ${errorMessage(failure, 'no answer from the server')}` };
      }
    },
  };

  return (
    <div className="page">
      <PageHeader title="System Settings" subtitle="Configure the Telegram bot, the system, the support mailbox, uploads and rate limits." />
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load settings')}</Banner> : null}
      {isLoading && <LoadingScreen text="Loading settings..." />}
      {data && <SettingsForm settings={data.settings} actions={actions} categories={categories.data?.categories ?? []} />}
      {data && <SatisfactionSettingsGroup />}
      {data && <SlaSettingsGroup categories={categories.data?.categories ?? []} />}
    </div>
  );
}
