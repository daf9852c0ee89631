import { eventually } from '../../../test/support/eventually';
import { startTestServer } from '../../../test/support/server';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';

/**
 * Issue 33: failed notices are kept up to FAILED_JOBS_KEEP_COUNT a channel, and the Deliveries view
 * pages through them instead of loading every one.
 */
describe('Failed deliveries, kept and paged', () => {
  it('when more mails fail than are kept, then the oldest are dropped, and the view pages through the rest newest first', async () => {
    // Nothing listens on the discard port: every mail fails at once, and the 1 s window gives up on it.
    const server = await startTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:9', DELIVERY_RETRY_WINDOW_MS: '1000', FAILED_JOBS_KEEP_COUNT: '5' } });
    try {
      const admin = await server.login();
      // One recipient is a customer of the desk: the view names them beside the address.
      const registered = await server.request('POST', '/api/auth/register', {
        body: { username: 'person7', email: 'person7@example.com', password: 'customer-password-1', firstName: 'Perry', lastName: 'Seven' },
      });
      expect(registered.status).toBe(201);
      for (let n = 1; n <= 7; n++) {
        const mail: EmailJob = { to: `person${n}@example.com`, subject: `Mail ${n}`, text: 'Hello', ticketId: '', kind: 'created' };
        await server.deps.queue.add(EMAIL_QUEUE, 'created', mail, { jobId: `paged-${n}`, backoffMs: 5000 });
        await eventually(async () => (await server.deps.queue.failed(EMAIL_QUEUE)).some((job) => job.id === `paged-${n}`), {
          describe: `mail ${n} failed for good`,
        });
      }
      // Seven failed, five kept: the two oldest are gone.
      expect(await server.deps.queue.failedCount(EMAIL_QUEUE)).toBe(5);

      const page = async (query: string) => {
        const answer = await server.request('GET', `/api/deliveries${query}`, { token: admin });
        expect(answer.status).toBe(200);
        return answer.body as {
          deliveries: Array<{ recipient: string; recipientName: string | null; state: string }>;
          counts: { failed: number };
          failedPagination: unknown;
        };
      };
      const first = await page('?limit=2');
      expect(first.deliveries.map((row) => [row.recipient, row.recipientName, row.state])).toEqual([
        ['person7@example.com', 'Perry Seven', 'failed'],
        ['person6@example.com', null, 'failed'],
      ]);
      expect(first.counts.failed).toBe(5);
      expect(first.failedPagination).toEqual({ page: 1, limit: 2, total: 5, pages: 3 });
      expect((await page('?limit=2&page=2')).deliveries.map((row) => row.recipient)).toEqual(['person5@example.com', 'person4@example.com']);
      expect((await page('?limit=2&page=3')).deliveries.map((row) => row.recipient)).toEqual(['person3@example.com']);
      expect((await page('?limit=2&page=4')).deliveries).toEqual([]);
      expect((await page('')).failedPagination).toEqual({ page: 1, limit: 50, total: 5, pages: 1 });

      const refused = await server.request('GET', '/api/deliveries?limit=0', { token: admin });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('limit must be at least 1');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
