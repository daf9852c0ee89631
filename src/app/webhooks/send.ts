import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { ValidationError } from '#contract/errors';

/**
 * Addresses no webhook may reach unless its host is on the allow-list: loopback, private, link-local,
 * reserved for protocols, benchmarks or documentation, and the like. IPv4-mapped IPv6 addresses
 * (::ffff:0:0/96) are checked as the IPv4 address they hold (BlockList does that itself).
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
// IPv6 forms that carry an IPv4 address to somewhere a host or its network may translate it (the
// IPv4-compatible ::/96, which holds :: and ::1 too; IPv4-translated ::ffff:0:0:0/96; NAT64's
// 64:ff9b::/96 and 64:ff9b:1::/48; 6to4 and Teredo) are refused whole, whatever the IPv4 inside.
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');

export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isForbiddenAddress(mapped);
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface WebhookNetworkRules {
  allowHttp: boolean;
  /** Hosts (lower-case names or addresses) that may be internal. */
  allowedHosts: readonly string[];
}

/** The URL's form: http(s) only (http when allowed), no credentials; answers the parsed URL. */
export function checkWebhookUrl(raw: string, rules: WebhookNetworkRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('URL must be an absolute URL', [{ path: 'url', message: 'Not a URL' }]);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp))
    throw new ValidationError(rules.allowHttp ? 'URL must start with https:// or http://' : 'URL must start with https://', [
      { path: 'url', message: 'Scheme refused' },
    ]);
  if (url.username || url.password) throw new ValidationError('URL must not hold a user name or password', [{ path: 'url', message: 'Credentials refused' }]);
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * Resolves the host and refuses it when any of its addresses is internal, unless the host is on the
 * allow-list. The same check runs inside every connection (`lookup` below), so a name that resolves
 * elsewhere by the time of sending (DNS rebinding) is refused there too.
 */
export async function checkWebhookTarget(url: URL, rules: WebhookNetworkRules): Promise<void> {
  const host = hostOf(url);
  if (rules.allowedHosts.includes(host)) return;
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) =>
        lookup(host, { all: true }, (error, found) =>
          error
            ? reject(new ValidationError(`The URL's host ${host} does not resolve`, [{ path: 'url', message: error.code ?? 'DNS error' }]))
            : resolve(found.map((entry) => entry.address)),
        ),
      );
  if (addresses.some(isForbiddenAddress))
    throw new ValidationError(`The URL's host ${host} is a loopback, private or link-local address; an admin may allow it with WEBHOOK_ALLOWED_HOSTS`, [
      { path: 'url', message: 'Internal address refused' },
    ]);
}

/** A connection's DNS lookup that refuses internal addresses for hosts not on the allow-list. */
const checkedLookup = (rules: WebhookNetworkRules, host: string): typeof lookup =>
  ((
    hostname: string,
    options: object,
    callback: (error: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void,
  ) =>
    lookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      if (!rules.allowedHosts.includes(host) && found.some((entry) => isForbiddenAddress(entry.address)))
        return callback(new Error(`${hostname} resolves to an internal address`), '', 0);
      if ((options as { all?: boolean }).all) return callback(null, found);
      callback(null, found[0]!.address, found[0]!.family);
      // dns.lookup's type is an overload set a single function cannot be written to match; http.Agent calls it as above.
    })) as unknown as typeof lookup;

/**
 * The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1` per secret,
 * the current one first: after a rotation the previous secret signs too for a while, so a receiver
 * that checks each v1 against its secret goes on verifying (docs/integrations.md has the recipe).
 */
export function signature(secrets: readonly string[], timestampSeconds: number, body: string): string {
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Posts one CloudEvent: never follows a redirect (a 3xx is a failure), 10 s at most, every address checked at connect time. */
export async function postWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  rules: WebhookNetworkRules,
  timeoutMs = 10_000,
): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const host = hostOf(url);
  if (isIP(host) && !rules.allowedHosts.includes(host) && isForbiddenAddress(host)) return done(null, `${host} is an internal address`);
  return new Promise<SendResult>((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/cloudevents+json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'support-desk-webhooks/1',
          ...headers,
        },
        lookup: checkedLookup(rules, host),
        timeout: timeoutMs,
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve(
            done(response.statusCode ?? null, (response.statusCode ?? 0) >= 300 && (response.statusCode ?? 0) < 400 ? 'Redirects are not followed' : null),
          ),
        );
        response.on('error', (error) => resolve(done(response.statusCode ?? null, error.message)));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`No answer within ${timeoutMs} ms`)));
    request.on('error', (error) => resolve(done(null, error.message)));
    request.end(body);
  });
}
