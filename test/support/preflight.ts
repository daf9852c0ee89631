import { ferretDbBinary } from './ferretdb';
import { installTools } from './services';

/**
 * The first step of `npm test`: what the tiers need from the machine, obtained before minutes of
 * type-checking and linting. Redis, Chromium and Dovecot (the e-mail channel's IMAP server) are installed with apt-get when missing (or the one
 * line says the command); FerretDB for the mongo tier is built when it is not cached, with a Go
 * fetched first when there is none, unless MONGO_URL names a MongoDB.
 */
async function preflight(): Promise<void> {
  await installTools(['redis', 'chromium', 'dovecot']);
  if (!process.env.MONGO_URL) await ferretDbBinary((line) => process.stdout.write(`${line}\n`));
}

preflight().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
