/** How long a client is asked to wait (Retry-After) while the desk starts. */
export const STARTING_RETRY_AFTER_SECONDS = 5;

/**
 * Whether this process serves requests yet. It listens at once, so health checks and load balancers
 * see it while the read models catch up with a large log; it becomes ready once they have and the
 * first admin exists.
 */
export class Startup {
  private isReady = false;

  get ready(): boolean {
    return this.isReady;
  }

  markReady(): void {
    this.isReady = true;
  }
}
