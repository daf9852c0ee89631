import type { JobOptions } from '../../platform/queue/port';

/** A job a reaction wants added: its id is derived from the event, so a replay adds nothing twice. */
export interface PlannedJob {
  queue: string;
  name: string;
  data: unknown;
  options: JobOptions;
}
