import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KEYRING_FILE, Keyring, openSecret, sealSecret } from './keyring';

describe('Keyring', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'keyring-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when first opened, then it is made readable by its owner only, and a second process opening it gets the same keys', () => {
    const first = Keyring.open(dataDir);
    expect(statSync(path.join(dataDir, KEYRING_FILE)).mode & 0o777).toBe(0o600);
    expect(Keyring.open(dataDir).current('rating-links')).toEqual(first.current('rating-links'));
  });

  it('when a secret is sealed, then it opens for its owner only, and still after a rotation until its key is retired', () => {
    const keyring = Keyring.open(dataDir);
    const sealed = sealSecret(keyring, 'whsec_secret', 'webhook-a');
    expect(JSON.stringify(sealed)).not.toContain('whsec_secret');
    expect(openSecret(keyring, sealed, 'webhook-a')).toBe('whsec_secret');
    expect(() => openSecret(keyring, sealed, 'webhook-b')).toThrow();
    expect(keyring.rotate('webhook-secrets')).toBe('k2');
    expect(sealSecret(keyring, 'x', 'webhook-a').kid).toBe('k2');
    expect(openSecret(keyring, sealed, 'webhook-a')).toBe('whsec_secret');
    expect(() => keyring.retire('webhook-secrets', 'k2')).toThrow('is the current key');
    keyring.retire('webhook-secrets', 'k1');
    expect(() => openSecret(keyring, sealed, 'webhook-a')).toThrow('The key k1 of webhook-secrets is not in keyring.json');
  });

  it('when another process rotates a key, then a running one finds the new key', () => {
    const running = Keyring.open(dataDir);
    expect(running.find('rating-links', 'k2')).toBeNull();
    const kid = Keyring.open(dataDir).rotate('rating-links');
    expect(running.find('rating-links', kid)).toEqual(Keyring.open(dataDir).current('rating-links').key);
  });
});
