import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';

/**
 * With MONGO_URL set (the `mongo` tier sets it), the servers tests start keep their read models in
 * that MongoDB, each in a database of its own: named after its DATA_DIR, so a server started again
 * on the same DATA_DIR finds its models again, as a restarted process of a deployment does.
 */
export function readModelsUrl(dataDir: string): string | undefined {
  const url = process.env.MONGO_URL;
  if (!url) return undefined;
  const name = `desk_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
  const [, base, query = ''] = /^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?[^?]*(\?.*)?$/.exec(url) ?? [];
  if (!base) throw new Error(`MONGO_URL is not a mongodb:// URL: ${url}`);
  return `${base}/${name}${query}`;
}

/** Drops the database a URL names (a test server's models, once its DATA_DIR is gone too). */
export async function dropDatabase(url: string): Promise<void> {
  const client = new MongoClient(url);
  try {
    await client.db().dropDatabase();
  } finally {
    await client.close();
  }
}
