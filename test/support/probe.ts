/** The probe read model of test/support/fencedWriter.ts: which process wrote each event's document, and the last. */
export const PROBE = 'probe_v1';
export const PROBE_EVENT = 'ProbeWritten';

export interface ProbeDoc {
  _id: string;
  n: number;
  by: string;
}
