// Connection-time half of the outbound address rule (outboundAddresses.ts): the name of a
// registered URL is resolved once, every address it resolves to is checked, and the socket
// connects to those checked addresses. node:net calls this `lookup` instead of its own, so
// there is no second resolution between the check and the connection for a DNS answer to
// change (DNS rebinding: a name that answers a public address to the check and 127.0.0.1 to
// the connection).

import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { checkOutboundAddress, checkOutboundHost, type AddressKind, type OutboundPolicy } from './outboundAddresses.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a name. Injectable so tests can make a name resolve to loopback without touching /etc/hosts. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address in its order. */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, order: 'verbatim' })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** A connection the rule refused: permanent until the registration or the configuration changes. */
export class OutboundAddressRefused extends Error {
  override name = 'OutboundAddressRefused';
  readonly host: string;
  readonly kind: AddressKind;
  /** The refused address; null for a name refused as written (`localhost`). */
  readonly address: string | null;
  constructor(host: string, address: string | null, kind: AddressKind, reason: string) {
    super(`${host}${address !== null && address !== host ? ` resolves to ${address}, which` : ''} ${reason.replace(/^must not point at/, 'is refused:')}`);
    this.host = host;
    this.address = address;
    this.kind = kind;
  }
}

/**
 * Before connecting to `hostname` (a URL's, IPv6 in brackets): an IP literal (node:net would
 * connect to it without any lookup) and `localhost` names are judged as written. Throws
 * OutboundAddressRefused.
 */
export function assertOutboundHost(hostname: string, policy: OutboundPolicy): void {
  const check = checkOutboundHost(hostname, policy);
  if (!check.ok) {
    const bare = hostname.replace(/^\[(.*)\]$/, '$1');
    throw new OutboundAddressRefused(bare, null, check.kind, check.reason);
  }
}

/**
 * A node:net `lookup` that refuses the whole name when any address it resolves to is refused
 * (the connection could use any of them), and otherwise hands node:net exactly the addresses
 * it checked, honouring the family asked for.
 */
export function guardedLookup(policy: OutboundPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    void (async () => {
      let wanted: ResolvedAddress[];
      try {
        const resolved = await resolve(hostname);
        for (const { address } of resolved) {
          const check = checkOutboundAddress(address, policy);
          if (!check.ok) throw new OutboundAddressRefused(hostname, address, check.kind, check.reason);
        }
        wanted = options.family === 4 || options.family === 6 ? resolved.filter((entry) => entry.family === options.family) : resolved;
        if (wanted.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      } catch (error) {
        callback(error as NodeJS.ErrnoException, '');
        return;
      }
      if (options.all) callback(null, wanted);
      else callback(null, wanted[0]!.address, wanted[0]!.family);
    })();
  };
}
