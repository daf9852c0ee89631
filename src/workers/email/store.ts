import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../platform/config';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../platform/files';
import { inboundMailDir } from '../../app/email/records';

/** The file of a mail, named after its key: fetching it again overwrites the same bytes. */
const inboundMailFile = (key: string) => `${createHash('sha256').update(key).digest('hex')}.eml`;

/** Written whole or not at all, as the outbox is: a job never reads half a mail. */
export async function keepInboundMail(config: Pick<Config, 'DATA_DIR'>, key: string, raw: Buffer): Promise<string> {
  const dir = inboundMailDir(config);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const name = inboundMailFile(key);
  const file = path.join(dir, name);
  await writeFile(`${file}.tmp`, raw, { mode: PRIVATE_FILE_MODE });
  await rename(`${file}.tmp`, file);
  return name;
}
