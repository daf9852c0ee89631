import {
  type BulkOp,
  type BulkResult,
  type Collection,
  type Doc,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Pipeline,
  type ReadStore,
  TransientStoreError,
  type Update,
  type UpdateResult,
} from './port';

/** The field every fenced write stamps with the writer's epoch. */
export const EPOCH_FIELD = '_epoch';
/** One document per fenced writer group: the highest epoch that has written a page. */
export const FENCES = 'fences';

/**
 * A write refused because a writer of a newer epoch has written: this writer lost its lease. It is a
 * TransientStoreError, so a projection never records it as a failure of the event and the page is
 * given up (the runner stands down when its lease says it lost it).
 */
export class FencedOutError extends TransientStoreError {
  constructor(collection: string, epoch: number) {
    super(collection, new Error(`a writer of an epoch after ${epoch} has written: this writer lost its lease`));
    this.name = 'FencedOutError';
  }
}

/**
 * A read store whose writes carry one writer's epoch (a lease's, docs/read-models.md "Fenced
 * writes"): every document written gets `_epoch`, and every write's filter also asks that the
 * document's `_epoch` is not newer than the writer's. So a writer that lost its lease never changes
 * a document its successor wrote: the update matches nothing, and an upsert meets the document's id
 * and fails, which this store answers as a `FencedOutError` once the fence says a newer writer is
 * about. `fence()` is the per-page check: it raises the group's fence document to the writer's epoch,
 * or fails if it is higher already. Reads pass through.
 */
export class FencedReadStore implements ReadStore {
  /**
   * `standing` says where the writer stands before each write: `sure` it leads (the lease renewed
   * within half its ttl), `unsure` (a renewal failed, or this process stalled: the write first reads
   * the fence and is refused if a newer writer raised it), or `gone` (the writer stood down: refused
   * without asking the store). So a page that runs on past a takeover stops at its next write, not
   * only at its next page.
   */
  constructor(
    private readonly store: ReadStore,
    readonly epoch: number,
    private readonly group: string,
    private readonly standing: () => 'sure' | 'unsure' | 'gone' = () => 'sure',
  ) {}

  get kind(): ReadStore['kind'] {
    return this.store.kind;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new FencedCollection<T>(
      this.store.collection<T>(name),
      this.epoch,
      () => this.fencedOut(),
      () => this.checked(name),
    );
  }

  /** Before a write: refused once the writer stood down, or a newer writer raised the fence while this one is not sure it leads. */
  private async checked(name: string): Promise<void> {
    const standing = this.standing();
    if (standing === 'gone' || (standing === 'unsure' && (await this.fencedOut()))) throw new FencedOutError(name, this.epoch);
  }

  /** Raises the fence to this writer's epoch; throws `FencedOutError` when a newer writer raised it. */
  async fence(): Promise<void> {
    const fences = this.store.collection<Doc & { epoch: number }>(FENCES);
    try {
      await fences.updateOne({ _id: this.group, epoch: { $lte: this.epoch } }, { $set: { epoch: this.epoch } }, { upsert: true });
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new FencedOutError(FENCES, this.epoch);
      throw error;
    }
  }

  /** Whether a writer of a newer epoch raised the fence. */
  async fencedOut(): Promise<boolean> {
    const fence = await this.store.collection<Doc & { epoch: number }>(FENCES).findOne({ _id: this.group });
    return (fence?.epoch ?? 0) > this.epoch;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

class FencedCollection<T extends Doc> implements Collection<T> {
  /** Matches a document no newer writer has written (or none fenced ever did): one object for every write's filter (none changes it). */
  private readonly notNewer: Filter;

  constructor(
    private readonly inner: Collection<T>,
    private readonly epoch: number,
    private readonly fencedOut: () => Promise<boolean>,
    private readonly checked: () => Promise<void>,
  ) {
    this.notNewer = { $not: { $gt: epoch } };
  }

  get name(): string {
    return this.inner.name;
  }

  findOne(filter: Filter): Promise<T | null> {
    return this.inner.findOne(filter);
  }

  find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.inner.find(filter, options);
  }

  count(filter?: Filter): Promise<number> {
    return this.inner.count(filter);
  }

  aggregate<R = Record<string, unknown>>(pipeline: Pipeline): Promise<R[]> {
    return this.inner.aggregate<R>(pipeline);
  }

  createIndex(spec: IndexSpec): Promise<void> {
    return this.inner.createIndex(spec);
  }

  drop(): Promise<void> {
    return this.inner.drop();
  }

  insertOne(doc: T): Promise<void> {
    return this.refusing(() => this.inner.insertOne(this.stamp(doc)));
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const op = this.fenceUpdate(filter, update);
    return this.refusing(() => this.inner.updateOne(op.filter, op.update, options));
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const op = this.fenceUpdate(filter, update);
    return this.refusing(() => this.inner.updateMany(op.filter, op.update));
  }

  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.refusing(() => this.inner.replaceOne(this.guard(filter), this.stamp(doc), options));
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.refusing(() => this.inner.deleteOne(this.guard(filter)));
  }

  deleteMany(filter: Filter = {}): Promise<number> {
    return this.refusing(() => this.inner.deleteMany(this.guard(filter)));
  }

  bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult> {
    const fenced = ops.map((op): BulkOp<T> => {
      if ('insertOne' in op) return { insertOne: { document: this.stamp(op.insertOne.document) } };
      if ('updateOne' in op) return { updateOne: { ...op.updateOne, ...this.fenceUpdate(op.updateOne.filter, op.updateOne.update) } };
      if ('updateMany' in op) return { updateMany: this.fenceUpdate(op.updateMany.filter, op.updateMany.update) };
      if ('replaceOne' in op)
        return { replaceOne: { ...op.replaceOne, filter: this.guard(op.replaceOne.filter), replacement: this.stamp(op.replaceOne.replacement) } };
      if ('deleteOne' in op) return { deleteOne: { filter: this.guard(op.deleteOne.filter) } };
      return { deleteMany: { filter: this.guard(op.deleteMany.filter) } };
    });
    return this.refusing(() => this.inner.bulkWrite(fenced));
  }

  private stamp(doc: T): T {
    return { ...doc, [EPOCH_FIELD]: this.epoch };
  }

  /** Read models never filter on `_epoch` themselves, so the guard is one more top-level condition. */
  private guard(filter: Filter): Filter {
    return { ...filter, [EPOCH_FIELD]: this.notNewer };
  }

  /**
   * A create-only upsert (`$setOnInsert` alone) changes no document that exists: it is stamped, not
   * guarded (a guard could not stop it re-creating a document a newer writer deleted; the page
   * fence does). Any other update is guarded and stamped.
   */
  private fenceUpdate(filter: Filter, update: Update): { filter: Filter; update: Update } {
    if (Object.keys(update).join() === '$setOnInsert') return { filter, update: { $setOnInsert: { ...update.$setOnInsert, [EPOCH_FIELD]: this.epoch } } };
    return { filter: this.guard(filter), update: { ...update, $set: { ...update.$set, [EPOCH_FIELD]: this.epoch } } };
  }

  /** Checked first (see `uncertain`); an upsert or insert that met a document's id is refused as fenced out when a newer writer is about. */
  private async refusing<R>(write: () => Promise<R>): Promise<R> {
    await this.checked();
    try {
      return await write();
    } catch (error) {
      if (error instanceof DuplicateKeyError && (await this.fencedOut())) throw new FencedOutError(this.inner.name, this.epoch);
      throw error;
    }
  }
}
