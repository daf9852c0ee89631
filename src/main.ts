import path from 'node:path';
import { type DemoDesk, DemoRefusedError, seedDemoDesk } from './demo/desk';
import { type Config, ConfigError, loadConfig } from './platform/config';
import { createEventStore } from './platform/adapters';
import { createLogger } from './platform/logger';
import { exitOnSignals } from './platform/shutdown';
import { USERS, type UserView } from './projections/users';
import { PortInUseError, startServer } from './server';

/** `--demo`: seed the demo desk into an empty DATA_DIR first (npm run demo). */
async function seedDemo(config: Config): Promise<DemoDesk> {
  const events = createEventStore(config);
  try {
    return await seedDemoDesk(events, { adminEmail: config.ADMIN_EMAIL, ...(config.ADMIN_PASSWORD ? { adminPassword: config.ADMIN_PASSWORD } : {}) });
  } finally {
    await events.close();
  }
}

const whereDataLives = (config: Config) =>
  config.EVENTSTORE_URL
    ? `event log in EventStoreDB (${config.EVENTSTORE_URL}); uploads in ${path.resolve(config.DATA_DIR)}`
    : `${path.resolve(config.DATA_DIR)} (event log: events.db)`;

async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const demo = process.argv.includes('--demo') ? await seedDemo(config) : null;
  const server = await startServer(config, { logger });
  exitOnSignals(logger, () => server.close(), server.closingStage);
  process.stdout.write(`Support desk listening at ${server.url}; catching up with the event log (GET /api/health shows the progress)\n`);

  const { firstAdmin } = await server.ready;
  // bench/run.ts and the scale-out test wait for "running at <url>": keep that phrase.
  const lines = [`Support desk running at ${server.url}`, `  data:  ${whereDataLives(config)}`, `  API reference: ${server.url}/api/docs`];
  if (server.metricsUrl) lines.push(`  metrics: ${server.metricsUrl}${config.METRICS_TOKEN ? ' (bearer METRICS_TOKEN)' : ''}`);
  else if (config.METRICS_TOKEN) lines.push(`  metrics: ${server.url}/metrics (bearer METRICS_TOKEN)`);
  if (demo) {
    const { admin, agent, customer } = demo.accounts;
    const open = demo.ticketsByStatus.open + demo.ticketsByStatus.in_progress + demo.ticketsByStatus.pending_customer;
    lines.push(
      `  demo desk: ${demo.agents} agents, ${demo.customers} customers, ${demo.categories} categories, ${demo.cannedMessages} canned replies, ${demo.macros} macros, ${open} open and ${demo.ticketsByStatus.resolved + demo.ticketsByStatus.closed} finished tickets`,
    );
    lines.push('  demo accounts (fixed passwords, for trying the desk only):');
    for (const account of [admin, agent, customer])
      lines.push(`    ${account.role.padEnd(8)} ${account.email}  password: ${account.password}  (${account.name})`);
    lines.push("    every demo agent and customer shares its role's password");
  } else if (firstAdmin) {
    lines.push(`  admin: ${firstAdmin.email} (first admin, created now)`);
    lines.push(
      firstAdmin.generatedPassword
        ? `  password: ${firstAdmin.generatedPassword}  (shown once; set ADMIN_PASSWORD to choose it)`
        : '  password: the ADMIN_PASSWORD you set',
    );
  } else {
    // The desk already had an admin: name the oldest active one, whoever ADMIN_EMAIL says today.
    const users = server.deps.readStore.collection<UserView>(USERS);
    const [oldest] = await users.find({ role: 'admin', isActive: true }, { sort: { createdAt: 1 }, limit: 1 });
    const admins = await users.count({ role: 'admin' });
    if (oldest) lines.push(`  admin: ${oldest.email}${admins > 1 ? ` (and ${admins - 1} more)` : ''} (its password was set or printed on the first start)`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  const told = error instanceof ConfigError || error instanceof DemoRefusedError || error instanceof PortInUseError;
  console.error(told ? error.message : error);
  process.exit(1);
});
