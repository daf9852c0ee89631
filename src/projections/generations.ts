import { createHash } from 'node:crypto';
import { LEASES } from '../platform/lease';
import { FENCES } from '../platform/readstore/fenced';
import type { Collection, Doc, ReadStore } from '../platform/readstore/port';
import { PROJECTION_FAULTS } from './faults';
import { CHECKPOINTS, PROJECTIONS_LEASE, type Projection } from './runner';

/** Where each generation of the read models on a shared store is registered (the store's only unsuffixed collection). */
export const GENERATIONS = 'read_model_generations';
/** The generation of read models written under the collections' plain names, before generations. */
export const LEGACY = 'legacy';

interface GenerationDoc extends Doc {
  /** `name@version` of each projection. */
  projections: string[];
  /** The collections it keeps, by their names in the store. */
  collections: string[];
  /** Where its lease lives (collection and key): a generation whose lease has long expired has no process left. */
  lease: { collection: string; key: string };
  /** When a process of it last started (ms since the epoch): a generation just started has not taken its lease yet. */
  startedAt: number;
}

/** A generation's view of the store; `raw` is the store itself (tests count its commands). */
export interface GenerationStore extends ReadStore {
  readonly raw: ReadStore;
}

interface LeaseDoc extends Doc {
  expiresAt: number;
}

/**
 * Versioned read models on a store shared by several processes (docs/read-models.md "Versions side
 * by side"). A generation is one set of projection versions; its name is a hash of them. Every
 * collection a generation uses (its read models, checkpoints, faults, lease and fence) is named
 * `<name>_g<generation>`, so a deploy that changes any projection version builds its own read
 * models beside the running ones, with a lease of its own, while the processes of the old version
 * keep serving theirs; its processes become ready once their models reached the head of the log.
 */
export class Generations {
  readonly id: string;
  private readonly versions: string[];

  constructor(
    private readonly raw: ReadStore,
    private readonly projections: Projection[],
  ) {
    this.versions = projections.map((projection) => `${projection.name}@${projection.version}`);
    this.id = createHash('sha256').update(this.versions.join(',')).digest('hex').slice(0, 10);
  }

  /** The collections of a generation, by their plain names. */
  private plainNames(): string[] {
    return [...new Set([...this.projections.flatMap((projection) => projection.collections), CHECKPOINTS, PROJECTION_FAULTS, LEASES, FENCES])];
  }

  nameOf(name: string): string {
    return `${name}_g${this.id}`;
  }

  /** The store as this generation sees it: every collection under its generation's name. */
  store(): GenerationStore {
    const raw = this.raw;
    return {
      raw,
      kind: raw.kind,
      collection: <T extends Doc = Doc>(name: string): Collection<T> => raw.collection<T>(this.nameOf(name)),
      ...(raw.transaction ? { transaction: raw.transaction.bind(raw) } : {}),
      close: () => raw.close(),
    };
  }

  /**
   * Notes this generation in the registry, and a store holding read models under the plain names
   * (written before generations) as the legacy generation, so that it is dropped once retired too.
   */
  async register(): Promise<void> {
    const registry = this.raw.collection<GenerationDoc>(GENERATIONS);
    const collections = this.plainNames().map((name) => this.nameOf(name));
    await registry.replaceOne(
      { _id: this.id },
      { _id: this.id, projections: this.versions, collections, lease: { collection: this.nameOf(LEASES), key: PROJECTIONS_LEASE }, startedAt: Date.now() },
      { upsert: true },
    );
    if ((await this.raw.collection(CHECKPOINTS).count()) > 0) {
      await registry.updateOne(
        { _id: LEGACY },
        { $setOnInsert: { projections: [], collections: this.plainNames(), lease: { collection: LEASES, key: PROJECTIONS_LEASE }, startedAt: Date.now() } },
        { upsert: true },
      );
    }
  }

  /**
   * Drops the collections of every other generation whose lease has been free for `retiredAfterMs`
   * (no process of that version left, or none that applies its log): answers the generations dropped.
   */
  async dropRetired(retiredAfterMs: number, now = Date.now()): Promise<string[]> {
    const registry = this.raw.collection<GenerationDoc>(GENERATIONS);
    const dropped: string[] = [];
    for (const generation of await registry.find({ _id: { $ne: this.id } })) {
      if (generation.startedAt > now - retiredAfterMs) continue;
      const lease = await this.raw.collection<LeaseDoc>(generation.lease.collection).findOne({ _id: generation.lease.key });
      if (lease && lease.expiresAt > now - retiredAfterMs) continue;
      for (const name of generation.collections) await this.raw.collection(name).drop();
      await registry.deleteOne({ _id: generation._id });
      dropped.push(generation._id);
    }
    return dropped;
  }
}
