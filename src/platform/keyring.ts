import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SealedSecret } from '../domain/webhook/webhook';

/**
 * The server's keys that are not JWT_SECRET, one list per purpose, each key named by an id (`kid`):
 * - `webhook-secrets`: AES-256-GCM keys that seal the webhooks' signing secrets in their events;
 * - `rating-links`: HMAC-SHA256 keys that sign the e-mailed rating links.
 * New signatures and seals use the purpose's current key; older ids stay readable as long as they are
 * in the file, so a key is rotated without breaking what it signed or sealed (docs/operations.md).
 * Kept in DATA_DIR/keyring.json, made on the first start; every process of a deployment shares it.
 */
export const KEY_PURPOSES = ['webhook-secrets', 'rating-links'] as const;
export type KeyPurpose = (typeof KEY_PURPOSES)[number];

interface KeyList {
  current: string;
  keys: Record<string, string>;
}
type KeyringFile = Record<KeyPurpose, KeyList>;

export const KEYRING_FILE = 'keyring.json';

const newKey = () => randomBytes(32).toString('base64url');
const fresh = (): KeyringFile => ({ 'webhook-secrets': { current: 'k1', keys: { k1: newKey() } }, 'rating-links': { current: 'k1', keys: { k1: newKey() } } });

function parseKeyring(text: string, file: string): KeyringFile {
  const parsed = JSON.parse(text) as Partial<KeyringFile>;
  for (const purpose of KEY_PURPOSES) {
    const list = parsed[purpose];
    if (!list || typeof list.keys !== 'object' || typeof list.keys[list.current] !== 'string')
      throw new Error(`${file}: "${purpose}" must name its current key among its keys`);
  }
  return parsed as KeyringFile;
}

const versionOf = (file: string) => {
  const { ino, mtimeMs, size } = statSync(file);
  return `${ino}:${mtimeMs}:${size}`;
};

export class Keyring {
  private content: KeyringFile;
  /** The file's version read: a change is written to a new file renamed over the old, so a new inode. */
  private version: string;

  private constructor(private readonly file: string) {
    this.version = versionOf(file);
    this.content = parseKeyring(readFileSync(file, 'utf8'), file);
  }

  /** The keyring of DATA_DIR, made with one key per purpose when there is none (created exclusively: two processes starting together agree). */
  static open(dataDir: string): Keyring {
    const file = path.join(dataDir, KEYRING_FILE);
    try {
      writeFileSync(file, JSON.stringify(fresh(), null, 2), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new Keyring(file);
  }

  /** Reads the file again when another process (or `npm run keys`) changed it: a stat per use, so no process signs with a retired key for long. */
  private refresh(): void {
    const version = versionOf(this.file);
    if (version === this.version) return;
    this.content = parseKeyring(readFileSync(this.file, 'utf8'), this.file);
    this.version = version;
  }

  current(purpose: KeyPurpose): { kid: string; key: Buffer } {
    this.refresh();
    const { current, keys } = this.content[purpose];
    return { kid: current, key: Buffer.from(keys[current]!, 'base64url') };
  }

  /** The key of that id, or null: a key added by another process since is found too. */
  find(purpose: KeyPurpose, kid: string): Buffer | null {
    const known = () => (Object.hasOwn(this.content[purpose].keys, kid) ? Buffer.from(this.content[purpose].keys[kid]!, 'base64url') : null);
    this.refresh();
    return known();
  }

  ids(purpose: KeyPurpose): { current: string; ids: string[] } {
    this.refresh();
    return { current: this.content[purpose].current, ids: Object.keys(this.content[purpose].keys) };
  }

  /** Adds a key and makes it the current one; the older ones stay, to read what they signed. Answers the new id. */
  rotate(purpose: KeyPurpose): string {
    return this.change(purpose, (list) => {
      const next = Math.max(0, ...Object.keys(list.keys).map((kid) => Number(/^k(\d+)$/.exec(kid)?.[1] ?? 0))) + 1;
      const kid = `k${next}`;
      return { current: kid, keys: { ...list.keys, [kid]: newKey() } };
    }).current;
  }

  /** Removes a key that is no longer current: what it signed or sealed stops verifying. */
  retire(purpose: KeyPurpose, kid: string): void {
    this.change(purpose, (list) => {
      if (!Object.hasOwn(list.keys, kid)) throw new Error(`No key ${kid} for ${purpose}`);
      if (list.current === kid) throw new Error(`${kid} is the current key for ${purpose}: rotate first`);
      const { [kid]: _retired, ...keys } = list.keys;
      return { current: list.current, keys };
    });
  }

  private change(purpose: KeyPurpose, update: (list: KeyList) => KeyList): KeyList {
    this.refresh();
    const list = update(this.content[purpose]);
    const content = { ...this.content, [purpose]: list };
    // Written aside, then renamed over: a process reading meanwhile sees the old file or the new, never half of one.
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(content, null, 2), { mode: 0o600 });
    renameSync(temporary, this.file);
    this.content = content;
    this.version = versionOf(this.file);
    return list;
  }
}

/** Seals with AES-256-GCM under the current `webhook-secrets` key, bound to what it belongs to (`context`, checked on opening). */
export function sealSecret(keyring: Keyring, secret: string, context: string): SealedSecret {
  const { kid, key } = keyring.current('webhook-secrets');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { kid, iv: iv.toString('base64url'), data: data.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

/** The secret, or an error naming why it cannot be read (its key not in the keyring, or the seal broken). */
export function openSecret(keyring: Keyring, sealed: SealedSecret, context: string): string {
  const key = keyring.find('webhook-secrets', sealed.kid);
  if (!key) throw new Error(`The key ${sealed.kid} of webhook-secrets is not in ${KEYRING_FILE}`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'))
    .setAAD(Buffer.from(context))
    .setAuthTag(Buffer.from(sealed.tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()]).toString('utf8');
}
