import { type FormEvent, useState } from 'react';
import { API_TOKEN_SCOPES } from '#contract/apiTokens';
import { FEED_EVENT_TYPES, type FeedEventType } from '#contract/events';
import { errorMessage } from '../../app/api';
import { Badge, Banner, EmptyState, DataTable } from '../../components/ui';
import { formatDateTime, timeAgo } from '../../lib/format';
import { useUsersQuery } from './api';
import {
  type ApiTokenScope,
  useApiTokensQuery,
  useCreateApiTokenMutation,
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useEnableWebhookMutation,
  useRedeliverWebhookMutation,
  useRevokeApiTokenMutation,
  useRewindWebhookMutation,
  useWebhookDeliveriesQuery,
  useWebhooksQuery,
} from './integrationsApi';

/** The owner choice that makes a named service account instead of picking a user. */
const SERVICE = '__service__';

/** The delivery log refreshes on its own: deliveries and retries happen in the background. */
const REFRESH_MS = 3000;

/** A secret the server shows this once: the admin copies it now or makes a new one. */
function SecretOnce({ what, secret, onDone }: { what: string; secret: string; onDone: () => void }) {
  return (
    <Banner kind="warning">
      <div role="status" aria-label={`New ${what}`}>
        Copy the {what} now: it is shown only this once.
        <pre className="mono" data-testid="secret-once">
          {secret}
        </pre>
        <button type="button" className="button button-secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </Banner>
  );
}

function TokensSection() {
  const tokens = useApiTokensQuery();
  const users = useUsersQuery({ page: 1, limit: 100 });
  const [create, creating] = useCreateApiTokenMutation();
  const [revoke] = useRevokeApiTokenMutation();
  const [label, setLabel] = useState('');
  const [userId, setUserId] = useState('');
  const [scopes, setScopes] = useState<ApiTokenScope[]>(['tickets:read']);
  const [expiresAt, setExpiresAt] = useState('');
  const [service, setService] = useState('');
  const [serviceRole, setServiceRole] = useState<'agent' | 'admin'>('agent');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const owner = userId === SERVICE ? { serviceAccount: { name: service, role: serviceRole } } : { userId };
    try {
      const answer = await create({ label, ...owner, scopes, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null }).unwrap();
      setSecret(answer.secret);
      setLabel('');
    } catch (failure) {
      setError(errorMessage(failure, 'Could not create the token'));
    }
  };
  const toggle = (scope: ApiTokenScope) => setScopes((current) => (current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope]));

  return (
    <section aria-label="API tokens">
      <h3>API tokens</h3>
      {secret && <SecretOnce what="API token" secret={secret} onDone={() => setSecret(null)} />}
      {error && <Banner kind="error">{error}</Banner>}
      <form className="form" onSubmit={(event) => void submit(event)} aria-label="New API token">
        <div className="form-row">
          <div className="field">
            <label htmlFor="token-label">Label</label>
            <input id="token-label" className="input" value={label} onChange={(event) => setLabel(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="token-user">Acts as</label>
            <select id="token-user" className="input" value={userId} onChange={(event) => setUserId(event.target.value)}>
              <option value="">Choose a user</option>
              <option value={SERVICE}>A new service account…</option>
              {users.data?.users.map((user) => (
                <option key={user._id} value={user._id}>
                  {user.firstName} {user.lastName} ({user.username}, {user.role})
                </option>
              ))}
            </select>
          </div>
          {userId === SERVICE && (
            <>
              <div className="field">
                <label htmlFor="token-service">Service account name</label>
                <input id="token-service" className="input" value={service} onChange={(event) => setService(event.target.value)} />
              </div>
              <div className="field">
                <label htmlFor="token-service-role">Its role</label>
                <select
                  id="token-service-role"
                  className="input"
                  value={serviceRole}
                  onChange={(event) => setServiceRole(event.target.value as 'agent' | 'admin')}
                >
                  <option value="agent">agent</option>
                  <option value="admin">admin</option>
                </select>
              </div>
            </>
          )}
          <div className="field">
            <label htmlFor="token-expiry">Expires (optional)</label>
            <input id="token-expiry" className="input" type="datetime-local" value={expiresAt} onChange={(event) => setExpiresAt(event.target.value)} />
          </div>
        </div>
        <fieldset className="form-row" aria-label="Scopes">
          {API_TOKEN_SCOPES.map((scope) => (
            <label key={scope} className="toggle">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} /> {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="button" disabled={creating.isLoading}>
          Create token
        </button>
      </form>
      {tokens.data && tokens.data.tokens.length === 0 && <EmptyState title="No API tokens yet" icon="check" />}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <DataTable columns={['Label', 'Owner', 'Scopes', 'Status', 'Expires', 'Last use', 'Actions']} label="API tokens">
          {tokens.data.tokens.map((token) => (
            <tr key={token._id}>
              <td>{token.label}</td>
              <td>{token.owner ? `${token.owner.name} (${token.owner.role})` : <span className="muted">gone</span>}</td>
              <td className="small">{token.scopes.join(', ')}</td>
              <td>
                <Badge variant={token.status === 'active' ? 'success' : 'secondary'}>{token.status}</Badge>
              </td>
              <td>{token.expiresAt ? formatDateTime(token.expiresAt) : <span className="muted">never</span>}</td>
              <td>{token.lastUsedAt ? timeAgo(token.lastUsedAt) : <span className="muted">never</span>}</td>
              <td>
                {token.status === 'active' && (
                  <button type="button" className="button button-secondary" aria-label={`Revoke ${token.label}`} onClick={() => void revoke(token._id)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

const DELIVERY_BADGE = {
  delivered: ['success', 'Delivered'],
  retrying: ['warning', 'Retrying'],
  given_up: ['destructive', 'Given up'],
  failed: ['destructive', 'Failed'],
} as const;

function DeliveryLog({ webhookId }: { webhookId: string }) {
  const log = useWebhookDeliveriesQuery(webhookId, { pollingInterval: REFRESH_MS });
  const [redeliver] = useRedeliverWebhookMutation();
  if (!log.data) return <p className="muted">Loading…</p>;
  if (log.data.deliveries.length === 0) return <EmptyState title="Nothing sent yet" icon="check" />;
  return (
    <DataTable columns={['Position', 'Event', 'Status', 'Response', 'Duration', 'Attempt', 'Next try', 'Actions']} label="Delivery log">
      {log.data.deliveries.map((delivery) => {
        const [variant, text] = DELIVERY_BADGE[delivery.status];
        return (
          <tr key={delivery._id}>
            <td className="mono">{delivery.position}</td>
            <td>{delivery.eventType}</td>
            <td>
              <Badge variant={variant}>{text}</Badge>
            </td>
            <td className="small">{delivery.statusCode ?? delivery.error ?? '—'}</td>
            <td>{delivery.durationMs} ms</td>
            <td>{delivery.attempt}</td>
            <td>{delivery.nextTryAt ? formatDateTime(delivery.nextTryAt) : <span className="muted">—</span>}</td>
            <td>
              <button
                type="button"
                className="button button-secondary"
                aria-label={`Redeliver ${delivery.position}`}
                onClick={() => void redeliver({ id: webhookId, position: delivery.position })}
              >
                Redeliver
              </button>
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

function WebhooksSection() {
  const webhooks = useWebhooksQuery(undefined, { pollingInterval: REFRESH_MS });
  const [create, creating] = useCreateWebhookMutation();
  const [rewind] = useRewindWebhookMutation();
  const [enable] = useEnableWebhookMutation();
  const [remove] = useDeleteWebhookMutation();
  const [url, setUrl] = useState('');
  const [includeNotes, setIncludeNotes] = useState(false);
  const [types, setTypes] = useState<FeedEventType[]>([]);
  const [from, setFrom] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [rewindTo, setRewindTo] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const answer = await create({ url, types, includeNotes, ...(from.trim() ? { after: Number(from) } : {}) }).unwrap();
      setSecret(answer.secret);
      setUrl('');
      setOpen(answer.webhook._id);
    } catch (failure) {
      setError(errorMessage(failure, 'Could not register the webhook'));
    }
  };

  return (
    <section aria-label="Webhooks">
      <h3>Webhooks</h3>
      {secret && <SecretOnce what="signing secret" secret={secret} onDone={() => setSecret(null)} />}
      {error && <Banner kind="error">{error}</Banner>}
      <form className="form" onSubmit={(event) => void submit(event)} aria-label="New webhook">
        <div className="form-row">
          <div className="field">
            <label htmlFor="webhook-url">Endpoint URL</label>
            <input
              id="webhook-url"
              className="input"
              value={url}
              placeholder="https://example.com/desk-events"
              onChange={(event) => setUrl(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="webhook-from">Start after position (optional)</label>
            <input id="webhook-from" className="input" inputMode="numeric" value={from} onChange={(event) => setFrom(event.target.value)} />
          </div>
          <label className="toggle field-toggle">
            <input type="checkbox" checked={includeNotes} onChange={(event) => setIncludeNotes(event.target.checked)} /> Include internal notes
          </label>
        </div>
        <div className="field">
          <label htmlFor="webhook-types">Event types (none chosen: all)</label>
          <select
            id="webhook-types"
            className="input"
            multiple
            value={types}
            onChange={(event) => setTypes(Array.from(event.target.selectedOptions, (option) => option.value as FeedEventType))}
          >
            {FEED_EVENT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button" disabled={creating.isLoading}>
          Add webhook
        </button>
      </form>
      {webhooks.data && webhooks.data.webhooks.length === 0 && <EmptyState title="No webhooks yet" icon="check" />}
      {webhooks.data?.webhooks.map((webhook) => (
        <div key={webhook._id} className="card" aria-label={`Webhook ${webhook.url}`}>
          <div className="row-actions">
            <strong className="mono">{webhook.url}</strong>
            <Badge variant={webhook.status === 'active' ? 'success' : 'destructive'}>{webhook.status}</Badge>
            <span className="small muted">delivered up to position {webhook.cursor}</span>
            <button type="button" className="button button-secondary" onClick={() => setOpen(open === webhook._id ? null : webhook._id)}>
              {open === webhook._id ? 'Hide deliveries' : 'Deliveries'}
            </button>
            {webhook.status === 'disabled' && (
              <button type="button" className="button button-secondary" onClick={() => void enable(webhook._id)}>
                Enable
              </button>
            )}
            <button type="button" className="button button-secondary danger" onClick={() => void remove(webhook._id)}>
              Delete
            </button>
          </div>
          {webhook.disabledReason && <Banner kind="error">Disabled: {webhook.disabledReason}</Banner>}
          {open === webhook._id && (
            <>
              <form
                className="form-row"
                aria-label="Rewind"
                onSubmit={(event) => {
                  event.preventDefault();
                  void rewind({ id: webhook._id, after: Number(rewindTo) });
                }}
              >
                <label htmlFor={`rewind-${webhook._id}`}>Send again after position</label>
                <input
                  id={`rewind-${webhook._id}`}
                  className="input"
                  inputMode="numeric"
                  value={rewindTo}
                  onChange={(event) => setRewindTo(event.target.value)}
                />
                <button type="submit" className="button button-secondary">
                  Rewind
                </button>
              </form>
              <DeliveryLog webhookId={webhook._id} />
            </>
          )}
        </div>
      ))}
    </section>
  );
}

/** Admin → Integrations (docs/integrations.md): API tokens, shown once, and webhooks with their delivery log. */
export function IntegrationsTab() {
  return (
    <div className="stack">
      <TokensSection />
      <WebhooksSection />
    </div>
  );
}
