import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { ferretDbBinary, startFerretDb } from './ferretdb';
import teardown, { ferretDbState } from './mongo-teardown';
import { traceHandles } from './openHandles';
import { provideRedis, requireTools } from './services';

/**
 * The `mongo` tier's global set-up: the suites it runs need a MongoDB wire server at MONGO_URL.
 * With MONGO_URL set (a real MongoDB: `docker compose up -d mongo`) that server is checked and used;
 * without it a FerretDB (test/support/ferretdb.sh builds it once) is started on a free loopback port
 * over a temp directory, and MONGO_URL is set for the test workers. A server that cannot be reached
 * or started fails the tier with what to do: the Mongo path is never skipped.
 */

const HOW_TO = [
  'The mongo tier runs the read models on a MongoDB wire server. Either let it start FerretDB',
  '(test/support/ferretdb.sh builds it with Go, fetched when missing, into ~/.cache/support-desk; FERRETDB_BIN names a binary of yours),',
  'or point MONGO_URL at a MongoDB: docker compose up -d mongo && MONGO_URL=mongodb://localhost:27017/test npm run test:mongo',
].join('\n');

async function answers(url: string): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}

async function ferretDb(): Promise<string> {
  try {
    return await ferretDbBinary((line) => process.stderr.write(`${line}\n`));
  } catch (error) {
    throw new Error(`FerretDB could not be built: ${(error as Error).message}\n${HOW_TO}`, { cause: error });
  }
}

export default async function setup(): Promise<void> {
  traceHandles();
  // Its suites use Redis too (test/support/services.ts).
  await requireTools(['redis']);
  await provideRedis();
  const given = process.env.MONGO_URL;
  if (given) {
    try {
      await answers(given);
    } catch (error) {
      throw new Error(`MONGO_URL=${given} does not answer: ${(error as Error).message}\n${HOW_TO}`, { cause: error });
    }
    return;
  }
  const binary = await ferretDb();
  const dir = mkdtempSync(path.join(tmpdir(), 'desk-ferretdb-'));
  try {
    const { child, address } = await startFerretDb(binary, dir);
    ferretDbState.started = { child, dir };
    // The test workers are started after this and inherit it.
    process.env.MONGO_URL = `mongodb://${address}/desk`;
    await answers(process.env.MONGO_URL);
  } catch (error) {
    await teardown();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`FerretDB could not be started: ${(error as Error).message}\n${HOW_TO}`, { cause: error });
  }
}
