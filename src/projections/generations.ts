import { createHash } from 'node:crypto';
import { LEASES } from '../platform/lease';
import { FENCES } from '../platform/readstore/fenced';
import { type Collection, type Doc, DuplicateKeyError, type ReadStore } from '../platform/readstore/port';
import { PROJECTION_FAULTS, type ProjectionFault } from './faults';
import { generationsOf } from './lineage';
import { CHECKPOINTS, type Ownership, PROJECTIONS_LEASE, type Projection } from './runner';

/** Where each version of the desk on a shared store is registered (one of the store's unsuffixed collections). */
export const GENERATIONS = 'read_model_generations';
/** The read models written under the collections' plain names, before generations. */
export const LEGACY = 'legacy';
/** The checkpoints of every projection generation, shared by the versions of the desk: one document per generation. */
export const SHARED_CHECKPOINTS = 'read_model_checkpoints';
/** The counter every version's lease draws its epochs from, so that epochs grow across versions (platform/lease.ts). */
export const EPOCHS = 'read_model_epochs';

interface GenerationDoc extends Doc {
  /** `name@version` of each projection. */
  projections: string[];
  /** The collections it uses, by their names in the store (those of a projection generation may be shared with other versions). */
  collections: string[];
  /** The ids of its projections' checkpoints in SHARED_CHECKPOINTS (absent for the generations before). */
  checkpoints?: string[];
  /** Where its lease lives (collection and key): a version whose lease has long expired has no process left. */
  lease: { collection: string; key: string };
  /** When a process of it last started (ms since the epoch): a version just started has not taken its lease yet. */
  startedAt: number;
}

/** A generation's view of the store; `raw` is the store itself (tests count its commands). */
export interface GenerationStore extends ReadStore {
  readonly raw: ReadStore;
}

interface LeaseDoc extends Doc {
  expiresAt: number;
}

interface CheckpointDoc extends Doc {
  owner?: string;
}

/** A collection of the version `version` of the desk that is its own (faults, lease, fence). */
const ownName = (name: string, version: string) => `${name}_g${version}`;

/**
 * Versioned read models on a store shared by several processes, and by several versions of the desk
 * during a rolling deploy (docs/read-models.md "Versions side by side"). Each projection has a
 * generation of its own (lineage.ts: its version and those of the projections it reads), and its
 * collections are named `<name>_g<its generation>`: a version of the desk that changes one projection
 * builds that one (and those that read it) beside the running ones, and shares every other with the
 * running version. A shared projection generation is written by one version at a time, its checkpoint's
 * `owner` (`claim`); the lease, fence and fault records are each version's own.
 */
export class Generations implements Ownership {
  /** This version of the desk: a hash of its projection generations. */
  readonly id: string;
  private readonly versions: string[];
  private readonly generationOf: Map<string, string>;
  /** The projection that owns each collection, by its plain name. */
  private readonly projectionOf: Map<string, string>;

  constructor(
    private readonly raw: ReadStore,
    private readonly projections: Projection[],
  ) {
    this.versions = projections.map((projection) => `${projection.name}@${projection.version}`);
    this.generationOf = generationsOf(projections);
    this.projectionOf = new Map(projections.flatMap((projection) => projection.collections.map((name) => [name, projection.name] as const)));
    const named = projections.map(({ name }) => this.checkpointId(name)).sort();
    this.id = createHash('sha256').update(named.join(',')).digest('hex').slice(0, 10);
  }

  get owner(): string {
    return this.id;
  }

  /** The checkpoint of a projection's generation. */
  checkpointId(name: string): string {
    return `${name}_g${this.generationOf.get(name)}`;
  }

  /** A collection's name in the store: its projection's generation's, the shared checkpoints, or this version's own. */
  nameOf(name: string): string {
    const projection = this.projectionOf.get(name);
    if (projection) return `${name}_g${this.generationOf.get(projection)}`;
    return name === CHECKPOINTS ? SHARED_CHECKPOINTS : ownName(name, this.id);
  }

  /** The store as this version sees it: every collection under its generation's name. */
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

  /** The counter the lease draws its epochs from. */
  epochs(): Collection<Doc & { value: number }> {
    return this.raw.collection(EPOCHS);
  }

  /**
   * Notes this version in the registry, and a store holding read models under the plain names
   * (written before generations) as the legacy generation, so that it is dropped once retired too.
   */
  async register(): Promise<void> {
    const registry = this.raw.collection<GenerationDoc>(GENERATIONS);
    const plain = [...new Set(this.projections.flatMap((projection) => projection.collections))];
    const collections = [...plain, PROJECTION_FAULTS, LEASES, FENCES].map((name) => this.nameOf(name));
    const checkpoints = this.projections.map(({ name }) => this.checkpointId(name));
    await registry.replaceOne(
      { _id: this.id },
      {
        _id: this.id,
        projections: this.versions,
        collections,
        checkpoints,
        lease: { collection: this.nameOf(LEASES), key: PROJECTIONS_LEASE },
        startedAt: Date.now(),
      },
      { upsert: true },
    );
    if ((await this.raw.collection(CHECKPOINTS).count()) > 0) {
      await registry.updateOne(
        { _id: LEGACY },
        {
          $setOnInsert: {
            projections: [],
            collections: [...plain, CHECKPOINTS, PROJECTION_FAULTS, LEASES, FENCES],
            lease: { collection: LEASES, key: PROJECTIONS_LEASE },
            startedAt: Date.now(),
          },
        },
        { upsert: true },
      );
    }
  }

  /**
   * Takes over every projection generation whose checkpoint names no writer, this version, or a
   * version whose lease is free (its processes stopped): the checkpoint's owner is set under the
   * writer's fence, the old writer's fence is raised to `epoch` (a stalled one of it writes nothing
   * more) and its fault records of those projections are copied. Epochs grow across versions, so the
   * new writer's stamp is above every stamp of the old. The rest another version writes.
   */
  async claim(writer: ReadStore, epoch: number): Promise<ReadonlySet<string>> {
    const checkpoints = writer.collection<CheckpointDoc>(CHECKPOINTS);
    const found = new Map((await checkpoints.find({ _id: { $in: this.projections.map(({ name }) => this.checkpointId(name)) } })).map((c) => [c._id, c]));
    const owned = new Set<string>();
    const taken = new Map<string, string[]>();
    for (const { name } of this.projections) {
      const owner = found.get(this.checkpointId(name))?.owner;
      if (owner === undefined || owner === this.id) {
        owned.add(name);
        continue;
      }
      if (!(await this.leaseFree(owner, 0))) continue;
      const claimed = await checkpoints.updateOne({ _id: this.checkpointId(name), owner }, { $set: { owner: this.id } });
      if (claimed.matched !== 1) continue;
      owned.add(name);
      taken.set(owner, [...(taken.get(owner) ?? []), name]);
    }
    for (const [owner, names] of taken) await this.takeOver(owner, names, epoch);
    return owned;
  }

  /** Whether a writer of another version stopped writing one of these projections. */
  async claimable(names: readonly string[]): Promise<boolean> {
    const checkpoints = await this.raw.collection<CheckpointDoc>(SHARED_CHECKPOINTS).find({ _id: { $in: names.map((name) => this.checkpointId(name)) } });
    for (const { owner } of checkpoints) if (owner !== undefined && owner !== this.id && (await this.leaseFree(owner, 0))) return true;
    return false;
  }

  /** Raises the old writer's fence to `epoch` and copies its fault records of `names` into this version's. */
  private async takeOver(owner: string, names: string[], epoch: number): Promise<void> {
    try {
      await this.raw
        .collection<Doc & { epoch: number }>(ownName(FENCES, owner))
        .updateOne({ _id: PROJECTIONS_LEASE, epoch: { $lte: epoch } }, { $set: { epoch } }, { upsert: true });
    } catch (error) {
      // Its fence is above: it leads again, and finds these projections written by this version.
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    const records = await this.raw.collection<ProjectionFault>(ownName(PROJECTION_FAULTS, owner)).find({ projection: { $in: names } });
    if (records.length > 0)
      await this.store()
        .collection<ProjectionFault>(PROJECTION_FAULTS)
        .bulkWrite(records.map((record) => ({ replaceOne: { filter: { _id: record._id }, replacement: record, upsert: true } })));
  }

  /** No process of that version has held its lease for `forMs` (or it is not registered any more). */
  private async leaseFree(version: string, forMs: number, now = Date.now()): Promise<boolean> {
    const generation = await this.raw.collection<GenerationDoc>(GENERATIONS).findOne({ _id: version });
    if (!generation) return true;
    const lease = await this.raw.collection<LeaseDoc>(generation.lease.collection).findOne({ _id: generation.lease.key });
    return !lease || lease.expiresAt <= now - forMs;
  }

  /**
   * Drops what only retired versions use (versions whose lease has been free for `retiredAfterMs` and
   * that no process started within it): their own collections, the projection generations no other
   * version uses, and those generations' checkpoints. Answers the versions dropped.
   */
  async dropRetired(retiredAfterMs: number, now = Date.now()): Promise<string[]> {
    const registry = this.raw.collection<GenerationDoc>(GENERATIONS);
    const all = await registry.find({});
    const retired: GenerationDoc[] = [];
    for (const generation of all) {
      if (generation._id !== this.id && generation.startedAt <= now - retiredAfterMs && (await this.leaseFree(generation._id, retiredAfterMs, now)))
        retired.push(generation);
    }
    const kept = all.filter((generation) => !retired.includes(generation));
    const keptCollections = new Set(kept.flatMap((generation) => generation.collections));
    const keptCheckpoints = new Set(kept.flatMap((generation) => generation.checkpoints ?? []));
    for (const generation of retired) {
      for (const name of generation.collections) if (!keptCollections.has(name)) await this.raw.collection(name).drop();
      const unused = (generation.checkpoints ?? []).filter((id) => !keptCheckpoints.has(id));
      if (unused.length > 0) await this.raw.collection(SHARED_CHECKPOINTS).deleteMany({ _id: { $in: unused } });
      await registry.deleteOne({ _id: generation._id });
    }
    return retired.map((generation) => generation._id);
  }
}
