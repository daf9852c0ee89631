/** Polls until `check` returns a value other than undefined/false, or fails with what it last saw. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, describe = 'condition' }: { timeoutMs?: number; describe?: string } = {},
): Promise<Exclude<T, false | undefined | null>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false && value !== null) return value as Exclude<T, false | undefined | null>;
    if (Date.now() > deadline) throw new Error(`${describe} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
