import { ConfigError, loadConfig } from './platform/config';
import { startServer } from './server';

async function main() {
  const config = loadConfig();
  const server = await startServer(config);
  const shutdown = (signal: string) => {
    server.deps.logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.stdout.write(`Support desk listening at ${server.url}; catching up with the event log (GET /api/health shows the progress)\n`);

  const { firstAdmin } = await server.ready;
  const lines = [`Support desk running at ${server.url}`];
  if (firstAdmin) {
    lines.push(`First admin created: ${firstAdmin.email}`);
    lines.push(
      firstAdmin.generatedPassword
        ? `  password: ${firstAdmin.generatedPassword}  (shown once; set ADMIN_PASSWORD to choose it)`
        : '  password: the ADMIN_PASSWORD you set',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
