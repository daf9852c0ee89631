import { traceHandles } from './openHandles';
import { provideRedis, requireTools } from './services';

/** The e2e tier's global set-up: Chromium and a Redis, both checked before any build output is used (test/support/services.ts). */
export default async function setup(): Promise<void> {
  traceHandles();
  await requireTools(['redis', 'chromium']);
  await provideRedis();
}
