import { z } from 'zod';

/**
 * What the read models recorded against the log (docs/read-models.md "When the log holds what a read
 * model cannot"): the answers of `GET /api/audit/projections/faults` and `GET /api/audit/projections`,
 * which the admin's Read Models tab shows.
 */
const faultOf = {
  _id: z.string(),
  projection: z.string(),
  position: z.number().int(),
  eventId: z.string(),
  eventType: z.string(),
  occurredAt: z.string(),
};

const ConflictFault = z.strictObject({
  ...faultOf,
  kind: z.literal('conflict'),
  collection: z.string(),
  field: z.string(),
  value: z.string(),
  holders: z.array(z.string()),
});
const FailureFault = z.strictObject({ ...faultOf, kind: z.literal('failure'), streamId: z.string(), error: z.string() });

export const ProjectionFaults = z
  .strictObject({
    conflicts: z.strictObject({ count: z.number().int(), items: z.array(ConflictFault) }),
    failures: z.strictObject({ count: z.number().int(), items: z.array(FailureFault) }),
    stalled: z.array(z.strictObject({ name: z.string(), position: z.number().int(), forMs: z.number() })),
    retrying: z.strictObject({ error: z.string(), since: z.string(), attempts: z.number().int() }).nullable(),
    problems: z.array(z.string()),
  })
  .meta({ id: 'ProjectionFaults' });

const idList = z.strictObject({ count: z.number().int(), ids: z.array(z.string()) });
export const ProjectionCheck = z
  .strictObject({
    ok: z.boolean(),
    position: z.number().int(),
    events: z.number().int(),
    collections: z.array(
      z.strictObject({
        name: z.string(),
        rebuilt: z.number().int(),
        live: z.number().int(),
        missing: idList,
        extra: idList,
        different: z.strictObject({ count: z.number().int(), documents: z.array(z.strictObject({ _id: z.string(), fields: z.array(z.string()) })) }),
      }),
    ),
    liveMovedOn: z.boolean(),
    durationMs: z.number(),
  })
  .meta({ id: 'ProjectionCheck' });

export type ProjectionFaults = z.infer<typeof ProjectionFaults>;
export type ProjectionCheck = z.infer<typeof ProjectionCheck>;
