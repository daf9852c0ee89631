import { createHash } from 'node:crypto';
import type { Projection } from './runner';

/**
 * Each projection's generation: a hash of its `name@version` and the generations of the projections
 * it reads while applying (`reads`). So a version bump changes the generation of that projection and
 * of those that read it, and of no other (docs/read-models.md "Versions side by side").
 */
export function generationsOf(projections: readonly Projection[]): Map<string, string> {
  const byName = new Map(projections.map((projection) => [projection.name, projection]));
  const generations = new Map<string, string>();
  const generationOf = (projection: Projection, path: readonly string[]): string => {
    const known = generations.get(projection.name);
    if (known) return known;
    if (path.includes(projection.name)) throw new Error(`projections read each other in a cycle: ${[...path, projection.name].join(' -> ')}`);
    const read = (projection.reads ?? []).map((name) => {
      const dependency = byName.get(name);
      if (!dependency) throw new Error(`projection ${projection.name} reads ${name}, which is not among the projections run`);
      return generationOf(dependency, [...path, projection.name]);
    });
    const generation = createHash('sha256')
      .update([`${projection.name}@${projection.version}`, ...read.sort()].join(','))
      .digest('hex')
      .slice(0, 10);
    generations.set(projection.name, generation);
    return generation;
  };
  for (const projection of projections) generationOf(projection, []);
  return generations;
}
