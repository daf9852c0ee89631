import { createHmac } from 'node:crypto';
import { ValidationError } from '#contract/errors';
import { checkWebhookTarget, checkWebhookUrl, isForbiddenAddress, signature } from './send';

const STRICT = { allowHttp: false, allowedHosts: [] };

describe('Webhook targets', () => {
  it('when an address is loopback, private, link-local, unspecified, multicast or reserved, or IPv6 carrying an IPv4 one (mapped, compatible, translated, NAT64, 6to4, Teredo), then it is forbidden; a public one is not', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.5.5',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:0:127.0.0.1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::1',
      '2001:0:7f00:1::1',
      '198.18.0.1',
      '198.19.255.254',
      '192.0.0.1',
      '192.0.0.170',
      '192.0.2.1',
    ])
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '198.20.0.1', '192.0.1.1', '::ffff:8.8.8.8', '2a00:1450:4001::200e'])
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: false });
  });

  it('when no allow-list names them, then 127.0.0.1 and a name resolving to the loopback are refused; an allow-listed host passes', async () => {
    await expect(checkWebhookTarget(new URL('https://127.0.0.1/hook'), STRICT)).rejects.toThrow(ValidationError);
    await expect(checkWebhookTarget(new URL('https://localhost/hook'), STRICT)).rejects.toThrow('loopback, private or link-local');
    await expect(checkWebhookTarget(new URL('https://127.0.0.1/hook'), { ...STRICT, allowedHosts: ['127.0.0.1'] })).resolves.toBeUndefined();
  });

  it('when the URL is plain http and that is not allowed, or holds credentials or another scheme, then it is refused', () => {
    expect(() => checkWebhookUrl('http://example.com/hook', STRICT)).toThrow('URL must start with https://');
    expect(checkWebhookUrl('http://example.com/hook', { ...STRICT, allowHttp: true }).protocol).toBe('http:');
    expect(() => checkWebhookUrl('https://a:b@example.com/', STRICT)).toThrow('URL must not hold a user name or password');
    expect(() => checkWebhookUrl('gopher://example.com/', STRICT)).toThrow('URL must start with https://');
    expect(() => checkWebhookUrl('not a url', STRICT)).toThrow('URL must be an absolute URL');
  });

  it('when a body is signed, then the header is t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">, one v1 per secret, the current one first', () => {
    const body = '{"id":"42"}';
    const v1 = (secret: string) => createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signature(['whsec_x'], 1_700_000_000, body)).toBe(`t=1700000000,v1=${v1('whsec_x')}`);
    expect(signature(['whsec_new', 'whsec_old'], 1_700_000_000, body)).toBe(`t=1700000000,v1=${v1('whsec_new')},v1=${v1('whsec_old')}`);
  });
});
