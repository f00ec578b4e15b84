import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as plainRequest, type ClientRequest } from 'node:http';
import { request, type Agent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

// Outbound requests to addresses customers choose. Without WEBHOOK_ALLOW_PRIVATE_NETWORKS, a URL
// that resolves to loopback, private, link-local, multicast, reserved or cloud-metadata addresses
// is refused. The check happens inside the socket's own lookup, so the address checked is the
// address connected to: a DNS answer that changes between the check and the connect (rebinding)
// cannot reach an internal address.
//
// The ranges are ipaddr.js's (a maintained list of special-purpose registries): only addresses it
// calls plain `unicast` are public. IPv6 forms that carry an IPv4 address (mapped, compatible,
// 6to4, NAT64, Teredo) are judged by that IPv4 address, since that is where packets end up.

const cidr = (text: string) => ipaddr.IPv6.parseCIDR(text);
// Deprecated IPv4-compatible addresses (::a.b.c.d, RFC 4291), which ipaddr.js calls unicast.
const IPV4_COMPATIBLE = cidr('::/96');
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');

const ipv4Of = (bytes: number[]) => new ipaddr.IPv4(bytes);

/** The IPv4 addresses an IPv6 address leads to, or null when it embeds none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || address.match(IPV4_COMPATIBLE)) {
    return [ipv4Of(bytes.slice(12))];
  }
  if (address.match(NAT64_WELL_KNOWN)) return [ipv4Of(bytes.slice(12))];
  // 2002:AABB:CCDD::/48 leads to AA.BB.CC.DD.
  if (range === '6to4') return [ipv4Of(bytes.slice(2, 6))];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC: the server, and the client with its bits inverted.
  if (range === 'teredo') return [ipv4Of(bytes.slice(4, 8)), ipv4Of(bytes.slice(12).map((b) => b ^ 0xff))];
  return null;
}

function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  // ::/96 also holds :: and ::1; they embed 0.0.0.0 and 0.0.0.1, refused as well.
  const embedded = embeddedIPv4(address as ipaddr.IPv6);
  if (embedded) return embedded.every(isPublic);
  return address.range() === 'unicast';
}

/** True when an address must not be reached from here; anything that is not an address is refused. */
export function isForbiddenAddress(address: string): boolean {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return true;
  return !isPublic(ipaddr.parse(address));
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * A plain http receiver on this machine (localhost, 127.0.0.0/8, [::1]): taken only where the
 * operator allows it (WEBHOOK_ALLOW_LOOPBACK_HTTP, on under npm start), to try a webhook locally.
 */
export function isLoopbackHttp(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = hostOf(url);
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * Why a webhook URL cannot be used, or null when it can: https only (or, where allowed, http to this
 * machine), and (unless private networks are allowed) a host whose every address is public.
 */
export async function urlProblem(
  text: string,
  allowPrivateNetworks: boolean,
  allowLoopbackHttp = false,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (allowLoopbackHttp && isLoopbackHttp(url)) return null;
  if (url.protocol !== 'https:') {
    return allowLoopbackHttp ? 'must be an https URL, or http to this machine (localhost)' : 'must be an https URL';
  }
  if (allowPrivateNetworks) return null;
  const host = hostOf(url);
  if (isIP(host)) return isForbiddenAddress(host) ? 'must not point to a private or reserved address' : null;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return 'has a host name that does not resolve';
  }
  if (addresses.length === 0) return 'has a host name that does not resolve';
  return addresses.some((a) => isForbiddenAddress(a.address))
    ? 'must not point to a private or reserved address'
    : null;
}

// How a reused connection fails when the endpoint had closed it: reset, or closed before any answer
// ("socket hang up" carries ECONNRESET too), or the write refused.
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

class RefusedAddress extends Error {
  readonly code = 'EADDRREFUSED';
}

/** A lookup for the socket that refuses the whole host when any of its addresses is not public. */
function guardedLookup(allowPrivateNetworks: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (!allowPrivateNetworks && addresses.some((a) => isForbiddenAddress(a.address))) {
        return callback(new RefusedAddress(`${hostname} resolves to a private or reserved address`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0];
      callback(null, first.address, first.family);
    });
  };
}

export interface PostResult {
  /** HTTP status of the answer, or null when none came. */
  status: number | null;
  /** The first characters of the answer's body. */
  excerpt: string | null;
  /** Why there was no usable answer (network, TLS, timeout, refused address), else null. */
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Plain http to this machine is allowed (isLoopbackHttp). */
  allowLoopbackHttp?: boolean;
  /** Bytes of the answer read at most; the rest is discarded unread. */
  maxResponseBytes?: number;
  /** Characters of the answer kept as the excerpt. */
  excerptChars?: number;
  signal?: AbortSignal;
  /**
   * Connections kept alive between the attempts of one queue pass (one webhook's). Without it, a
   * fresh connection per attempt. Either way the address is checked when a connection is made.
   */
  agent?: Agent;
}

/**
 * POSTs `body` once over https. Never throws for the endpoint's behaviour: every outcome, including
 * timeouts and refused addresses, is a PostResult. Redirects are not followed. A kept-alive
 * connection of `agent` found closed by the endpoint (reset before any answer) is not an outcome:
 * the request goes again on a new connection, once, within the same timeout.
 */
export function postOnce(options: PostOptions): Promise<PostResult> {
  const started = Date.now();
  const maxBytes = options.maxResponseBytes ?? 64 * 1024;
  const excerptChars = options.excerptChars ?? 1024;
  const done = (partial: Omit<PostResult, 'durationMs'>): PostResult => ({
    ...partial,
    durationMs: Date.now() - started,
  });

  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return Promise.resolve(done({ status: null, excerpt: null, error: 'the URL is not valid' }));
  }
  const plain = options.allowLoopbackHttp === true && isLoopbackHttp(url);
  if (url.protocol !== 'https:' && !plain) {
    return Promise.resolve(done({ status: null, excerpt: null, error: 'the URL is not https' }));
  }
  const host = hostOf(url);
  // A literal address never goes through lookup, so it is checked here.
  if (isIP(host) && !plain && !options.allowPrivateNetworks && isForbiddenAddress(host)) {
    return Promise.resolve(done({ status: null, excerpt: null, error: `${host} is a private or reserved address` }));
  }

  return new Promise((resolve) => {
    let settled = false;
    let req: ClientRequest;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(done(result));
    };
    const deadline = setTimeout(() => {
      finish({ status: null, excerpt: null, error: `no answer within ${options.timeoutMs / 1000} s` });
      req.destroy();
    }, options.timeoutMs);

    const send = (agent: Agent | false) => {
      req = (plain ? plainRequest : request)({
        protocol: plain ? 'http:' : 'https:',
        hostname: host,
        port: url.port || (plain ? 80 : 443),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body)) },
        // A loopback receiver is this machine: the address rule is for everything else.
        lookup: guardedLookup(plain || options.allowPrivateNetworks),
        // The pass's agent speaks TLS; a loopback receiver gets a connection of its own per attempt.
        agent: plain ? false : agent,
        signal: options.signal,
      });
      const sent = req;
      let answered = false;
      sent.on('error', (error: NodeJS.ErrnoException) => {
        if (settled || sent !== req) return;
        // A kept-alive connection the endpoint closed while it sat in the pool (its keep-alive
        // timeout, seen late under load) fails before the request reaches the endpoint. That is our
        // connection going stale, not an answer: the same attempt goes again, once, on a new
        // connection. Should the endpoint have had it after all, it sees the delivery twice, as it
        // may anyway (at least once, deduplicated by X-Service-Delivery).
        if (sent.reusedSocket && !answered && STALE_CONNECTION.has(error.code ?? '') && !options.signal?.aborted) {
          send(false);
          return;
        }
        finish({ status: null, excerpt: null, error: error.message || error.code || 'request failed' });
      });
      sent.on('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const complete = (cutOff: boolean) => {
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, excerptChars);
          const redirect = status >= 300 && status < 400 ? 'redirects are not followed' : null;
          finish({ status, excerpt: excerpt || null, error: redirect });
          // A body read to its end leaves the connection reusable (with an agent); the rest is dropped.
          if (cutOff) res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (size >= maxBytes) return;
          chunks.push(chunk.subarray(0, maxBytes - size));
          size += chunk.length;
          if (size >= maxBytes) complete(true);
        });
        res.on('end', () => complete(false));
        // The status is the answer; a body cut off afterwards does not change it.
        res.on('error', () => complete(true));
        res.on('aborted', () => complete(true));
      });
      sent.end(options.body);
    };
    send(options.agent ?? false);
  });
}
