import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { AccessDenied, Banner, PageHeader, StatCard } from '../../components/ui';
import { useLogout } from '../../entities/session/session';
import { selectUser } from '../../entities/session/sessionSlice';
import { useStatsQuery } from '../../entities/ticket/api';
import { useAllCategoriesQuery, useUserStatsQuery } from './api';
import { BotCommandsTab } from './BotCommandsTab';
import { CategoriesTab } from './CategoriesTab';
import { TeamsTab } from './TeamsTab';
import { TagsTab } from './TagsTab';
import { RulesTab } from './RulesTab';
import { DeliveriesTab } from './DeliveriesTab';
import { IntegrationsTab } from './IntegrationsTab';
import { ReadModelsTab } from './ReadModelsTab';
import { useWebhooksQuery } from './integrationsApi';
import { UsersTab } from './UsersTab';

export const ADMIN_TABS = ['Users', 'Categories', 'Teams', 'Tags', 'Rules', 'Bot Commands', 'Deliveries', 'Integrations', 'Read Models', 'Settings'] as const;
type Tab = (typeof ADMIN_TABS)[number];

/** A figure that failed to load is logged and shown as a dash; the rest of the panel still works. */
const figure = (value: number | undefined, failed: unknown) => (failed ? '—' : (value ?? '…'));

function useLogged(error: unknown, what: string) {
  useEffect(() => {
    if (error) console.error(`Admin panel: ${what} failed to load`, error);
  }, [error, what]);
}

/** The Admin Panel of docs/product.md section 2: four stat cards, a welcome line, Logout and its tabs (the four of docs/product.md, and Deliveries). */
export function AdminPage() {
  const user = useAppSelector(selectUser);
  const logout = useLogout();
  // A link may open a tab (`/admin?tab=Categories`, the setup checklist's); the tabs themselves do not change the address.
  const [params, setParams] = useSearchParams();
  const [tab, setTab] = useState<Tab>(() => ADMIN_TABS.find((name) => name === params.get('tab')) ?? 'Users');
  // The tab is in the address, so a reload or a shared link opens it again.
  const choose = (name: Tab) => {
    setTab(name);
    setParams(name === 'Users' ? {} : { tab: name }, { replace: true });
  };
  const admin = user?.role === 'admin';
  const userStats = useUserStatsQuery(undefined, { skip: !admin });
  const ticketStats = useStatsQuery(undefined, { skip: !admin });
  const categories = useAllCategoriesQuery(undefined, { skip: !admin });
  // A webhook disabled after failing for days is told here, whichever tab is open (docs/integrations.md).
  const webhooks = useWebhooksQuery(undefined, { skip: !admin });
  const disabled = webhooks.data?.webhooks.filter((webhook) => webhook.status === 'disabled') ?? [];
  useLogged(userStats.error, 'user statistics');
  useLogged(ticketStats.error, 'ticket statistics');
  useLogged(categories.error, 'categories');
  if (!admin) return <AccessDenied>Access Denied: You must be an administrator to access the admin panel.</AccessDenied>;

  return (
    <div className="page">
      <PageHeader title="Admin Panel" subtitle={`Welcome back, ${user.firstName}! Manage users, categories and the Telegram bot from here.`}>
        <button type="button" className="button button-secondary" onClick={() => void logout()}>
          <Icon name="logout" size={16} /> Logout
        </button>
      </PageHeader>
      {disabled.length > 0 && (
        <Banner kind="error">
          {disabled.length === 1 ? `The webhook to ${disabled[0]!.url} was disabled` : `${disabled.length} webhooks were disabled`} after failing for too long:
          see the Integrations tab.
        </Banner>
      )}
      <div className="stat-grid">
        <StatCard label="Total Users" value={figure(userStats.data?.total, userStats.error)} icon="user" />
        <StatCard label="Total Tickets" value={figure(ticketStats.data?.total, ticketStats.error)} icon="ticket" tone="primary" />
        <StatCard label="Categories" value={figure(categories.data?.categories.length, categories.error)} icon="tag" />
        <StatCard label="Active Agents" value={figure(userStats.data?.activeAgents, userStats.error)} icon="profile" tone="success" />
      </div>
      <div className="tabs" role="tablist" aria-label="Administration">
        {ADMIN_TABS.map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} className={tab === name ? 'tab active' : 'tab'} onClick={() => choose(name)}>
            {name}
          </button>
        ))}
      </div>
      <div className="card" role="tabpanel" aria-label={tab}>
        {tab === 'Users' && <UsersTab />}
        {tab === 'Categories' && <CategoriesTab />}
        {tab === 'Teams' && <TeamsTab />}
        {tab === 'Tags' && <TagsTab />}
        {tab === 'Rules' && <RulesTab />}
        {tab === 'Bot Commands' && <BotCommandsTab />}
        {tab === 'Deliveries' && <DeliveriesTab />}
        {tab === 'Integrations' && <IntegrationsTab />}
        {tab === 'Read Models' && <ReadModelsTab />}
        {tab === 'Settings' && (
          <p className="muted">
            System-wide settings (Telegram bot token, uploads, rate limits, maintenance) live on the <Link to="/settings">System Settings</Link> screen.
          </p>
        )}
      </div>
    </div>
  );
}
