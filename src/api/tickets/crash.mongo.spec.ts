import { type Post, applyingAgainAt, databaseUrl, deployment, expectConsistent, sleep, statuses, underLoad } from '../../../test/support/deskProcesses';
import { eventually } from '../../../test/support/eventually';

/**
 * Issue 32's "done when", run for real, with the failover's timings (docs/read-models.md, "After a
 * crash of the leader"): two app processes on one log (a shared DATA_DIR: the SQLite log, its
 * secrets) and one MongoDB for their read models, at the default lease ttl. The lease holder is
 * SIGKILLed under a load of posts sent to both and started again; the other takes the lease over
 * once it expires; every acknowledged post is then listed exactly once by both, and with both stopped
 * `npm run projections:rebuild` finds the shared models equal to a rebuild.
 */
const TTL_MS = 10_000;
/** How long a command waits for its read models before it answers 202 (docs/retries.md). */
const READ_YOUR_WRITES_MS = 5000;
/** The load's senders: each has at most one post waiting at a time. */
const LANES = 4;

describe('Two app processes on one log and one MongoDB, the leader killed under a load of posts', () => {
  const desk = deployment(databaseUrl(process.env.MONGO_URL!, 'desk_crash'));
  afterAll(() => desk.dispose());

  it('when the lease holder is SIGKILLed and started again, then the other applies within ttl + 2 s, posts meanwhile wait the 5 s of read-your-writes and answer 202, and every acknowledged post is listed once by both', async () => {
    const run = await underLoad(desk);
    const killedAt = Date.now();
    run.processes[0]!.child.kill('SIGKILL');
    await eventually(() => applyingAgainAt(run.load.posts, killedAt) < Infinity, { timeoutMs: 30_000, describe: 'a post answered 201 after the kill' });
    const restarted = await desk.start();
    run.processes[0] = restarted;
    run.urls[0] = restarted.url;
    await sleep(2000);
    const [posts] = [await run.load.stop(), await run.health.stop()];

    const applyingAt = applyingAgainAt(posts, killedAt);
    // The posts answered between the kill and the new leader's first page.
    const meanwhile = posts.filter((post) => post.answeredAt >= killedAt && post.answeredAt <= applyingAt);
    const waited = (answered: Post[]) => Math.max(0, ...answered.map((post) => post.answeredAt - post.sentAt));
    const accepted = meanwhile.filter((post) => post.status === 202);
    const figures = {
      takeoverMs: applyingAt - killedAt,
      answeredMeanwhile: statuses(meanwhile),
      longestWaitMs: waited(meanwhile.filter((post) => post.status !== null)),
      longest202WaitMs: waited(accepted),
    };
    process.stderr.write(`[fault tally] leader killed: ${JSON.stringify(figures)}\n`);
    expect(figures.takeoverMs).toBeLessThanOrEqual(TTL_MS + 2000);
    // A post waits the read-your-writes wait at most, then answers 202: each sender meets at most one an ttl + 2 s / 5 s.
    expect(figures.longestWaitMs).toBeLessThanOrEqual(READ_YOUR_WRITES_MS + 1000);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThanOrEqual(LANES * Math.ceil((TTL_MS + 2000) / READ_YOUR_WRITES_MS));
    await expectConsistent('leader killed', desk, run, posts);
  }, 240_000);
});
