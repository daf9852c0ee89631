import { chmodSync, closeSync, openSync } from 'node:fs';

/**
 * What the desk keeps on disk (the event log with its password hashes and personal data, the job
 * queue, uploads, the mail outbox) is for the desk's own user alone, whatever the umask.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the file 0600 if it is missing, and tightens it if an earlier version left it readable.
 * SQLite then gives its -wal and -shm files the same mode as the database file.
 */
export function ensurePrivateFile(filename: string): void {
  closeSync(openSync(filename, 'a', PRIVATE_FILE_MODE));
  chmodSync(filename, PRIVATE_FILE_MODE);
}
