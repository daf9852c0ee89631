/**
 * The container's health check (Dockerfile HEALTHCHECK): asks this process's `/api/health` on
 * 127.0.0.1:$PORT. Exit 0 while it serves (`ok`, `degraded`) and while it is `starting`: a large log
 * takes longer to catch up than any start period, and a process making progress must not be marked
 * unhealthy and restarted. A load balancer reads the 503 of `starting` itself and keeps traffic away.
 * Exit 1 when nothing answers, the answer is not the health document, or within the timeout.
 */
const HEALTHY = new Set(['ok', 'degraded', 'starting']);
const TIMEOUT_MS = 4000;

async function check(): Promise<string> {
  const port = process.env.PORT || '3000';
  const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = (await response.json()) as { status?: unknown };
  const status = typeof body.status === 'string' ? body.status : `HTTP ${response.status}`;
  if (!HEALTHY.has(status) || (status !== 'starting' && !response.ok)) throw new Error(`unhealthy: ${status}`);
  return status;
}

check().then(
  (status) => {
    process.stdout.write(`${status}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stdout.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
