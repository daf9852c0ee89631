import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { dovecotPath, freePort, requireTools } from './services';

/** The uid and gid mail is kept as: Dovecot refuses root for mail, `nobody` is on every Debian. */
const MAIL_UID = 65534;
const START_TIMEOUT_MS = 10_000;

/** A private Dovecot (IMAP only, plain login on loopback) for one suite, with one user. */
export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Stops the server (connections refused) until `start`; the mail stays. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Puts a mail into a folder as a mail server would (IMAP APPEND); answers its UID. */
  append(raw: string | Buffer, folder?: string): Promise<number>;
  /** The UIDs and flags of what a folder holds now. */
  list(folder?: string): Promise<Array<{ uid: number; flags: string[] }>>;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/** A mail to `to` as a mail server would store it; `headers` adds or replaces lines of the head. */
export const inboundMail = (
  to: string,
  { from, id, subject, body, headers = [] }: { from: string; id: string; subject: string; body: string; headers?: string[] },
) =>
  [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${id}>`,
    'Date: Sat, 28 Nov 2026 12:00:00 +0000',
    'MIME-Version: 1.0',
    ...headers,
    '',
    body,
  ].join('\n');

/** The System Settings that point the desk's e-mail channel at this Dovecot (plain IMAP on loopback). */
export const mailboxSettings = (dovecot: Dovecot) => ({
  mailboxHost: dovecot.host,
  mailboxPort: dovecot.port,
  mailboxTls: false,
  mailboxUser: dovecot.user,
  mailboxPassword: dovecot.password,
});

const config = (dir: string, port: number) => `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = desk-test-${port}
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = 1
default_login_user = dovenull
default_internal_user = dovecot
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${MAIL_UID} gid=${MAIL_UID} home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
}
`;

/**
 * Starts Dovecot (`dovecot -c CONF`, its own base and state directories) on a free loopback port in a
 * temporary directory, with the user `desk` and a random password. Dovecot forks a master that
 * outlives the command; its pid file is how `stop` finds it.
 */
export async function startDovecot(): Promise<Dovecot> {
  await requireTools(['dovecot']);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'desk-dovecot-'));
  for (const sub of ['run', 'state', 'mail']) mkdirSync(path.join(dir, sub));
  // The mail user (not root) must reach and write its maildir under the temporary directory.
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, 'mail'), 0o777);
  const user = 'desk';
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`);
  const conf = path.join(dir, 'dovecot.conf');
  writeFileSync(conf, config(dir, port));
  const pidFile = path.join(dir, 'run', 'master.pid');
  const masterPid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const log = () =>
    existsSync(path.join(dir, 'dovecot.log')) ? readFileSync(path.join(dir, 'dovecot.log'), 'utf8').trim().split('\n').slice(-5).join('\n') : '';

  const client = () => new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
  const connected = async <T>(use: (imap: ImapFlow) => Promise<T>): Promise<T> => {
    const imap = client();
    await imap.connect();
    try {
      return await use(imap);
    } finally {
      await imap.logout().catch(() => imap.close());
    }
  };

  const start = async () => {
    // The master daemonizes and keeps the descriptors it was given: piped, they would hold spawnSync forever.
    const errors = path.join(dir, 'start.err');
    const fd = openSync(errors, 'w');
    const run = spawnSync(dovecotPath(), ['-c', conf], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    if (run.status !== 0) throw new Error(`dovecot did not start: ${readFileSync(errors, 'utf8').trim() || `exit ${run.status}`}\n${log()}`);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await connected(async () => undefined);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`dovecot did not answer on port ${port}: ${(error as Error).message}\n${log()}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const stop = async () => {
    const pid = masterPid();
    if (pid === null || !alive(pid)) return;
    process.kill(pid, 'SIGTERM');
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  await start();
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    stop,
    start,
    append: (raw, folder = 'INBOX') =>
      connected(async (imap) => {
        const answer = await imap.append(folder, typeof raw === 'string' ? Buffer.from(raw.replace(/\r?\n/g, '\r\n')) : raw);
        if (!answer || answer.uid === undefined) throw new Error(`APPEND to ${folder} answered no UID`);
        return answer.uid;
      }),
    list: (folder = 'INBOX') =>
      connected(async (imap) => {
        const lock = await imap.getMailboxLock(folder);
        try {
          const found: Array<{ uid: number; flags: string[] }> = [];
          if ((imap.mailbox && imap.mailbox.exists) === 0) return found;
          for await (const message of imap.fetch('1:*', { uid: true, flags: true }))
            found.push({ uid: message.uid, flags: [...(message.flags ?? [])].filter((flag) => flag !== '\\Recent') });
          return found;
        } finally {
          lock.release();
        }
      }),
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
