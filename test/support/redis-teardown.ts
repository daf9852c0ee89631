import { stopRedis } from './services';

/** Stops the Redis the set-up started, if any. */
export default async function teardown(): Promise<void> {
  await stopRedis();
}
