import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { ferretDbBinary } from './ferretdb';
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

const START_TIMEOUT_MS = 30_000;

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

/** Starts FerretDB on port 0 and answers the address it printed once listening. */
function startFerretDb(binary: string, dir: string): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      '--listen-addr=127.0.0.1:0',
      '--telemetry=disable',
      `--state-dir=${dir}`,
      // Its debug HTTP server would take 127.0.0.1:8088, which a second run on the machine also wants.
      '--debug-addr=-',
      '--log-format=text',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`FerretDB did not listen within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /Listening on TCP (127\.0\.0\.1:\d+)/.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      // Keep draining its logs so a full pipe never blocks it.
      child.stdout!.off('data', read).resume();
      child.stderr!.off('data', read).resume();
      resolve({ child, address: listening[1]! });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`FerretDB exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
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
