import { loadConfig } from '../platform/config';
import { KEY_PURPOSES, type KeyPurpose, Keyring } from '../platform/keyring';

/**
 * The keyring's command line (DATA_DIR/keyring.json, docs/operations.md "Rotating keys and secrets"):
 * the running processes see a change at their next use of a key; nothing needs a restart.
 *   npm run keys -- list                       the ids of each purpose, the current one marked
 *   npm run keys -- rotate <purpose>           a new current key; the older ones still verify
 *   npm run keys -- retire <purpose> <kid>     removes an old key: what it signed or sealed stops verifying
 * In the container: `node dist/src/cli/keys.js <command>`.
 */

const USAGE = `Usage: npm run keys -- list | rotate <purpose> | retire <purpose> <kid>   (purposes: ${KEY_PURPOSES.join(', ')})`;

const isPurpose = (value: string | undefined): value is KeyPurpose => KEY_PURPOSES.includes(value as KeyPurpose);

function main([command, purpose, kid]: string[]): number {
  const keyring = Keyring.open(loadConfig().DATA_DIR);
  if (command === 'list') {
    for (const name of KEY_PURPOSES) {
      const { current, ids } = keyring.ids(name);
      console.log(`${name}: ${ids.map((id) => (id === current ? `${id} (current)` : id)).join(', ')}`);
    }
    return 0;
  }
  if (command === 'rotate' && isPurpose(purpose)) {
    console.log(`${purpose}: ${keyring.rotate(purpose)} is the current key now`);
    return 0;
  }
  if (command === 'retire' && isPurpose(purpose) && kid) {
    keyring.retire(purpose, kid);
    console.log(`${purpose}: ${kid} retired`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

try {
  process.exit(main(process.argv.slice(2)));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
