import type { RuleDetails } from '../domain/rule/rule';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const RULES = 'rules_v1';
export const RULE_FIRINGS = 'rule_firings_v1';

/** A rule as the admin panel lists it, with how often it fired. */
export interface RuleView extends Doc, RuleDetails {
  version: number;
  fired: number;
  lastFiredAt: string | null;
  createdAt: string;
  updatedAt: string;
  _revision: number;
  /** The log position of the last `RuleFired` counted in `fired`. */
  _firedPosition: number;
}

/** One run of a rule on a ticket, keyed by its `RuleFired` event: "on which tickets". */
export interface RuleFiringView extends Doc {
  ruleId: string;
  version: number;
  ticketId: string;
  number: number;
  at: string;
  matched: string[];
}

const rules = (store: ReadStore) => store.collection<RuleView>(RULES);
const guard = (event: { data: { ruleId: string }; revision: number }) => ({ _id: event.data.ruleId, _revision: { $lt: event.revision } });

/** Serves the Rules page and the rules engine's ordered list; firings are written once per event id, so a replay counts nothing twice. */
export const rulesProjection: Projection = {
  name: 'rules',
  version: 1,
  collections: [RULES, RULE_FIRINGS],
  async setup(store: ReadStore) {
    await store.collection(RULES).createIndex({ keys: { order: 1 } });
    await store.collection(RULE_FIRINGS).createIndex({ keys: { ruleId: 1, at: -1 } });
  },
  ...handledBy({
    async RuleCreated(event, store) {
      const { ruleId: _id, ...details } = event.data;
      const at = event.metadata.occurredAt;
      const view: Omit<RuleView, '_id'> = {
        ...details,
        fired: 0,
        lastFiredAt: null,
        _firedPosition: 0,
        createdAt: at,
        updatedAt: at,
        _revision: event.revision,
      };
      await rules(store).updateOne({ _id: event.data.ruleId }, { $setOnInsert: view }, { upsert: true });
    },
    async RuleUpdated(event, store) {
      await rules(store).updateOne(guard(event), {
        $set: { ...event.data.changes, version: event.data.version, updatedAt: event.metadata.occurredAt, _revision: event.revision },
      });
    },
    async RuleDeleted(event, store) {
      await rules(store).deleteOne({ _id: event.data.ruleId });
    },
    async RuleFired(event, store) {
      const { rule, ticketId, number, matched } = event.data;
      const at = event.metadata.occurredAt;
      const firing: Omit<RuleFiringView, '_id'> = { ruleId: rule.id, version: rule.version, ticketId, number, at, matched };
      await store.collection<RuleFiringView>(RULE_FIRINGS).updateOne({ _id: event.id }, { $setOnInsert: firing }, { upsert: true });
      // Guarded by the log position it counts, so a replayed event counts once.
      await rules(store).updateOne(
        { _id: rule.id, _firedPosition: { $lt: event.position } },
        { $inc: { fired: 1 }, $set: { lastFiredAt: at, _firedPosition: event.position } },
      );
    },
  }),
};
