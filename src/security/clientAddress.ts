// The address of the client that sent a request: the direct peer, unless that peer is one of
// the operator's proxies (TRUSTED_PROXIES), in which case X-Forwarded-For is read from the right,
// skipping trusted proxies, to the first address that is not one. Without TRUSTED_PROXIES the
// header is never read: any client can write it.

import { BlockList, isIP } from 'node:net';
import type { Request } from 'express';

/** An IP address, or a CIDR range `address/bits`, as TRUSTED_PROXIES lists them. */
export function parseProxyEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [rawAddress = '', bits, extra] = entry.split('/');
  if (extra !== undefined) return null;
  const address = normalizeAddress(rawAddress);
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** An IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, as Node reports IPv4 peers on a dual-stack socket) as IPv4. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

const compiled = new WeakMap<readonly string[], BlockList>();

/**
 * A configured list of IP addresses and CIDR ranges (TRUSTED_PROXIES, OUTBOUND_ALLOWED_PRIVATE_RANGES)
 * as a BlockList, built once per list; entries the config module refused are not in the list.
 */
export function compileRanges(entries: readonly string[]): BlockList {
  let list = compiled.get(entries);
  if (!list) {
    list = new BlockList();
    for (const entry of entries) {
      const parsed = parseProxyEntry(entry);
      if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    compiled.set(entries, list);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const version = isIP(address);
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address for rate limits and the session list. The peer, unless it is a trusted
 * proxy; then each X-Forwarded-For entry from the right (the one the nearest proxy appended)
 * until one is not a trusted proxy. An entry that is not an IP address ends the walk at the
 * proxy that passed it on. Undefined only when the socket has no peer address (closed).
 */
export function clientAddress(req: Request, trustedProxies: readonly string[]): string | undefined {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return undefined;
  let current = normalizeAddress(peer);
  if (trustedProxies.length === 0) return current;
  const list = compileRanges(trustedProxies);
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  while (isTrusted(list, current)) {
    const next = forwarded.pop();
    if (next === undefined) return current;
    const address = normalizeAddress(next);
    if (isIP(address) === 0) return current;
    current = address;
  }
  return current;
}
