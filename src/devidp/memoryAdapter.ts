// Per-instance in-memory storage adapter for the dev IdP's oidc-provider.
//
// Why not oidc-provider's bundled MemoryAdapter: it prints a console warning on every start
// (the dev IdP must be quiet), and its default export shares one module-level store between
// Provider instances. Each startDevIdp() gets its own store here, so tests that start several
// IdPs never see each other's sessions or tokens.
//
// Expiry is checked lazily on read (no timers), so an idle IdP holds no handles that would keep
// the process (or vitest) alive.

import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  /** epoch milliseconds; undefined = no expiry */
  expiresAt: number | undefined;
}

interface Store {
  entries: Map<string, Entry>;
  /** grantId -> keys of the tokens/codes issued under that grant (for revokeByGrantId) */
  grants: Map<string, Set<string>>;
  /** secondary index key (sessionUid:/userCode:) -> primary key */
  index: Map<string, string>;
  writes: number;
}

export const JWT_ACCESS_TOKEN_INDEX = 'DevIdpJwtAccessToken';

/** Model names whose records carry a grantId and must disappear when the grant is revoked. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
  // Not an oidc-provider model: the dev IdP's own index of issued JWT access tokens (see
  // index.ts, introspection), removed with its grant like the provider's own tokens.
  JWT_ACCESS_TOKEN_INDEX,
]);

/** Sweep expired entries every this many writes so a long-running dev IdP does not grow forever. */
const SWEEP_EVERY = 500;

function isLive(entry: Entry | undefined, now = Date.now()): entry is Entry {
  return entry !== undefined && (entry.expiresAt === undefined || entry.expiresAt > now);
}

function sweep(store: Store): void {
  const now = Date.now();
  for (const [key, entry] of store.entries) {
    if (!isLive(entry, now)) {
      store.entries.delete(key);
    }
  }
  for (const [indexKey, key] of store.index) {
    if (!store.entries.has(key)) store.index.delete(indexKey);
  }
  for (const [grantId, keys] of store.grants) {
    for (const key of keys) {
      if (!store.entries.has(key)) keys.delete(key);
    }
    if (keys.size === 0) store.grants.delete(grantId);
  }
}

class DevIdpMemoryAdapter implements Adapter {
  readonly #model: string;
  readonly #store: Store;
  readonly #clockToleranceSeconds: number;

  constructor(model: string, store: Store, clockToleranceSeconds: number) {
    this.#model = model;
    this.#store = store;
    this.#clockToleranceSeconds = clockToleranceSeconds;
  }

  #key(id: string): string {
    return `${this.#model}:${id}`;
  }

  #get(key: string): AdapterPayload | undefined {
    const entry = this.#store.entries.get(key);
    if (!isLive(entry)) {
      if (entry) this.#store.entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const key = this.#key(id);
    const expiresAt = typeof expiresIn === 'number'
      ? Date.now() + (expiresIn + this.#clockToleranceSeconds) * 1000
      : undefined;
    this.#store.entries.set(key, { payload, expiresAt });

    if (this.#model === 'Session' && typeof payload.uid === 'string') {
      this.#store.index.set(`sessionUid:${payload.uid}`, key);
    }
    if (typeof payload.userCode === 'string') {
      this.#store.index.set(`userCode:${payload.userCode}`, key);
    }
    if (GRANTABLE.has(this.#model) && typeof payload.grantId === 'string') {
      let members = this.#store.grants.get(payload.grantId);
      if (!members) {
        members = new Set();
        this.#store.grants.set(payload.grantId, members);
      }
      members.add(key);
    }

    this.#store.writes += 1;
    if (this.#store.writes % SWEEP_EVERY === 0) sweep(this.#store);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#get(this.#key(id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.index.get(`sessionUid:${uid}`);
    return key === undefined ? undefined : this.#get(key);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.index.get(`userCode:${userCode}`);
    return key === undefined ? undefined : this.#get(key);
  }

  async consume(id: string): Promise<void> {
    const payload = this.#get(this.#key(id));
    if (payload) {
      // oidc-provider detects authorization code replay through this marker (RFC 6749 §4.1.2).
      payload.consumed = Math.floor(Date.now() / 1000);
    }
  }

  async destroy(id: string): Promise<void> {
    this.#store.entries.delete(this.#key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const members = this.#store.grants.get(grantId);
    if (!members) return;
    for (const key of members) {
      this.#store.entries.delete(key);
    }
    this.#store.grants.delete(grantId);
  }
}

/** A fresh, isolated adapter factory (one store shared by all models of one Provider). */
export function createMemoryAdapterFactory(clockToleranceSeconds: number): AdapterFactory {
  const store: Store = { entries: new Map(), grants: new Map(), index: new Map(), writes: 0 };
  return (model: string) => new DevIdpMemoryAdapter(model, store, clockToleranceSeconds);
}
