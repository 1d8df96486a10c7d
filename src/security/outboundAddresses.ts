// Which addresses the gateway's outbound calls to registered URLs (back-channel logout) may
// reach (GUIDE §5). A platform administrator chooses those URLs, so without this rule the
// gateway would POST, with retries, wherever they point: its own loopback services, the
// cloud's instance metadata service (credentials), the company's internal network
// (server-side request forgery, OWASP SSRF Prevention Cheat Sheet).
//
// - public addresses: always;
// - private ranges (RFC 1918, RFC 6598 shared address space, RFC 4193 unique local): only
//   inside the ranges the operator lists (OUTBOUND_ALLOWED_PRIVATE_RANGES);
// - loopback (127.0.0.0/8, ::1, `localhost`): only in the dev stack, or listed outside
//   production (the configuration refuses a listed loopback range in production);
// - never: the unspecified address (0.0.0.0 reaches the local host on Linux), link-local
//   (which is where the metadata services live), the cloud metadata addresses themselves,
//   multicast, broadcast and the reserved, documentation and benchmarking ranges.
//
// IPv4 inside IPv6 is judged as the IPv4 address it reaches: IPv4-mapped `::ffff:a.b.c.d`
// (node:net's BlockList matches IPv4 rules against it by itself), the NAT64 well-known
// prefix 64:ff9b::/96 (RFC 6052) and 6to4 2002::/16 (RFC 3056).
//
// Pure module: no I/O. The checks run at registration (src/services/registry/rules.ts, the
// host as written) and at connection time (src/security/outboundLookup.ts, every address the
// name resolves to).

import { BlockList, isIP } from 'node:net';
import { compileRanges, parseProxyEntry } from './clientAddress.ts';

/** What the gateway may reach besides public addresses (from the configuration). */
export interface OutboundPolicy {
  /** OUTBOUND_ALLOWED_PRIVATE_RANGES: IP addresses and CIDR ranges, each inside a private (or, outside production, loopback) block. */
  readonly allowedPrivateRanges: readonly string[];
  /** Loopback reachable without listing it: the dev stack's demo platforms live on localhost. */
  readonly allowLoopback: boolean;
}

/** Nothing but public addresses: the default wherever no configuration is passed. */
export const PUBLIC_ONLY: OutboundPolicy = Object.freeze({ allowedPrivateRanges: Object.freeze([]), allowLoopback: false });

export type AddressKind =
  | 'public'
  | 'private'
  | 'loopback'
  | 'unspecified'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

export interface AddressClass {
  kind: AddressKind;
  /** For an IPv4 address carried in IPv6 (NAT64, 6to4): the IPv4 address judged. */
  embedded?: string;
}

type Family = 'ipv4' | 'ipv6';
type Block = readonly [network: string, prefix: number, family: Family];

// Checked in this order: the first list that holds the address names its kind.
const BLOCKS: readonly (readonly [AddressKind, readonly Block[]])[] = [
  [
    'metadata',
    [
      ['169.254.169.254', 32, 'ipv4'], // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
      ['169.254.170.2', 32, 'ipv4'], // AWS ECS task credentials
      ['fd00:ec2::254', 128, 'ipv6'], // AWS IMDS over IPv6
      ['fd20:ce::254', 128, 'ipv6'], // GCP metadata over IPv6
      ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud
      ['168.63.129.16', 32, 'ipv4'], // Azure WireServer (a public address, answers only inside Azure)
    ],
  ],
  ['unspecified', [['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']]], // RFC 1122 §3.2.1.3, RFC 4291 §2.5.2
  ['loopback', [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]], // RFC 1122, RFC 4291 §2.5.3
  ['link-local', [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]], // RFC 3927, RFC 4291 §2.5.6
  ['multicast', [['224.0.0.0', 4, 'ipv4'], ['ff00::', 8, 'ipv6']]],
  ['broadcast', [['255.255.255.255', 32, 'ipv4']]],
  [
    'reserved',
    [
      ['240.0.0.0', 4, 'ipv4'], // RFC 1112 §4
      ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments, RFC 6890
      ['192.0.2.0', 24, 'ipv4'], // documentation, RFC 5737
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'], // benchmarking, RFC 2544
      ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast, deprecated by RFC 7526
      ['::', 96, 'ipv6'], // IPv4-compatible, deprecated (RFC 4291 §2.5.5.1)
      ['::ffff:0:0:0', 96, 'ipv6'], // IPv4-translated (RFC 2765 §2.1): an IPv4 address inside
      ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64, RFC 8215
      ['100::', 64, 'ipv6'], // discard, RFC 6666
      ['2001::', 32, 'ipv6'], // Teredo: an obfuscated IPv4 inside
      ['2001:db8::', 32, 'ipv6'], // documentation, RFC 3849
      ['fec0::', 10, 'ipv6'], // site-local, deprecated (RFC 3879)
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'], // RFC 1918
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'], // shared address space (carrier-grade NAT), RFC 6598
      ['fc00::', 7, 'ipv6'], // unique local, RFC 4193
    ],
  ],
];

const KIND_LISTS: readonly (readonly [AddressKind, BlockList])[] = BLOCKS.map(([kind, blocks]) => [kind, blockListOf(blocks)]);
const NAT64 = blockListOf([['64:ff9b::', 96, 'ipv6']]);
const SIX_TO_FOUR = blockListOf([['2002::', 16, 'ipv6']]);

function blockListOf(blocks: readonly Block[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of blocks) list.addSubnet(network, prefix, family);
  return list;
}

/** The kind of an IP address (IPv4 or IPv6, without brackets). Throws on anything else. */
export function classifyAddress(address: string): AddressClass {
  const version = isIP(address);
  if (version === 0) throw new TypeError('not an IP address');
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  if (family === 'ipv6') {
    const embedded = embeddedIpv4(address);
    if (embedded !== undefined) return { kind: classifyAddress(embedded).kind, embedded };
  }
  for (const [kind, list] of KIND_LISTS) if (list.check(address, family)) return { kind };
  return { kind: 'public' };
}

/** The IPv4 address a NAT64 (64:ff9b::/96, last 32 bits) or 6to4 (2002::/16, bits 16..47) address carries. */
function embeddedIpv4(address: string): string | undefined {
  const nat64 = NAT64.check(address, 'ipv6');
  if (!nat64 && !SIX_TO_FOUR.check(address, 'ipv6')) return undefined;
  const groups = ipv6Groups(address);
  const [high, low] = nat64 ? [groups[6]!, groups[7]!] : [groups[1]!, groups[2]!];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

// ---------------------------------------------------------------- the policy

export type OutboundCheck = { ok: true } | { ok: false; kind: AddressKind; reason: string };


/** Whether the gateway may connect to `address` (an IP address, no brackets) under `policy`. */
export function checkOutboundAddress(address: string, policy: OutboundPolicy): OutboundCheck {
  const { kind, embedded } = classifyAddress(address);
  if (kind === 'public') return { ok: true };
  const judged = embedded ?? address;
  if (kind === 'private' || kind === 'loopback') {
    if (kind === 'loopback' && policy.allowLoopback) return { ok: true };
    const family = isIP(judged) === 4 ? 'ipv4' : 'ipv6';
    if (compileRanges(policy.allowedPrivateRanges).check(judged, family)) return { ok: true };
  }
  return { ok: false, kind, reason: refusalReason(kind, address) };
}

/** The per-field message of a refusal (for a client and for the operator's log): what and why, never a secret. */
function refusalReason(kind: AddressKind, address: string): string {
  switch (kind) {
    case 'private':
      return `must not point at the private address ${address} unless the gateway's OUTBOUND_ALLOWED_PRIVATE_RANGES lists its range`;
    case 'loopback':
      return `must not point at the loopback address ${address} (the gateway itself; allowed only in the dev stack)`;
    case 'metadata':
      return `must not point at ${address}, a cloud instance metadata address`;
    case 'link-local':
      return `must not point at the link-local address ${address}`;
    default:
      return `must not point at the ${kind} address ${address}`;
  }
}

/**
 * Registration-time check of a URL's host (`URL.hostname`, IPv6 in brackets): an IP literal is
 * judged as above; `localhost` and names under `.localhost` are loopback (RFC 6761 §6.3: they
 * always resolve there). Other names pass here and are judged after resolution, at connection
 * time: what a name resolves to can change after registration.
 */
export function checkOutboundHost(hostname: string, policy: OutboundPolicy): OutboundCheck {
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(literal) !== 0) return checkOutboundAddress(literal, policy);
  // `localhost.` is the same name, fully qualified (RFC 1034 §3.1).
  const name = literal.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    // What it resolves to: both must be allowed (the connection may use either).
    const v4 = checkOutboundAddress('127.0.0.1', policy);
    const v6 = checkOutboundAddress('::1', policy);
    if (v4.ok && v6.ok) return { ok: true };
    return { ok: false, kind: 'loopback', reason: `must not point at ${name}, a loopback name (the gateway itself; allowed only in the dev stack)` };
  }
  return { ok: true };
}

// ---------------------------------------------------------------- the configuration

const LISTABLE: readonly (readonly [AddressKind, Block])[] = [
  ...BLOCKS.find(([kind]) => kind === 'private')![1].map((block) => ['private', block] as const),
  ...BLOCKS.find(([kind]) => kind === 'loopback')![1].map((block) => ['loopback', block] as const),
];

/**
 * An entry of OUTBOUND_ALLOWED_PRIVATE_RANGES: an IP address or a CIDR range that lies wholly
 * inside one private block (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) or, outside
 * production, the loopback block. Returns the refusal's reason, or null when accepted.
 * Link-local and public ranges cannot be listed: public addresses need no listing, link-local
 * ones are never reached, nor is a metadata address inside a listed range.
 */
export function allowedRangeProblem(entry: string, options: { isProduction: boolean }): string | null {
  const parsed = parseProxyEntry(entry);
  if (!parsed) return 'must be an IP address or a CIDR range such as 10.20.0.0/16';
  const inside = LISTABLE.find(
    ([, [network, prefix, family]]) => family === parsed.family && parsed.prefix >= prefix && blockListOf([[network, prefix, family]]).check(parsed.address, family),
  );
  if (!inside) return 'must lie inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7)';
  if (inside[0] === 'loopback' && options.isProduction) return 'loopback is never allowed in production';
  // A listed range may hold a metadata address (100.64.0.0/10 holds Alibaba's): it stays refused.
  return null;
}
