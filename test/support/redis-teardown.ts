import { type TierConfig, reportOpenHandles } from './openHandles';
import { stopRedis } from './services';

/** Stops the Redis the set-up started, if any, and arms the hang guard (test/support/openHandles.ts). */
export default async function teardown(_global: unknown, project: TierConfig): Promise<void> {
  await stopRedis();
  reportOpenHandles(project);
}
