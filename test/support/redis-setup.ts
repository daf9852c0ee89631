import { traceHandles } from './openHandles';
import { provideRedis, requireTools } from './services';

/** The global set-up of the tiers that use Redis (test/support/services.ts): REDIS_URL's, the one on 6379, or one of the run's own. */
export default async function setup(): Promise<void> {
  traceHandles();
  await requireTools(['redis']);
  await provideRedis();
}
