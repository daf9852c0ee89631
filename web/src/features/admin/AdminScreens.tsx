/**
 * The administration screens (Canned messages, Admin Panel, System Settings, Telegram Whitelist)
 * are routed and guarded here; their forms arrive with the administration release. Until then each
 * says so plainly instead of showing an empty page.
 */
const TITLES = {
  canned: 'Canned Messages',
  admin: 'Admin Panel',
  settings: 'System Settings',
  whitelist: 'Telegram Whitelist',
} as const;

const DOCS = {
  canned: 'docs/tickets.md',
  admin: 'docs/identity.md and docs/settings.md',
  settings: 'docs/settings.md',
  whitelist: 'docs/settings.md',
} as const;

export function AdminScreens({ screen }: { screen: keyof typeof TITLES }) {
  return (
    <div className="page">
      <header className="page-header">
        <h1>{TITLES[screen]}</h1>
      </header>
      <div className="card">
        <p>This screen is not available in the browser yet. Until it is, an administrator can make these changes through the HTTP API ({DOCS[screen]}).</p>
      </div>
    </div>
  );
}
