// Where a back end keeps its signed-in people: the browser holds only a random session id in
// an HttpOnly cookie; the session, with the platform credential, stays on the server. The
// memory store is for development and tests (it forgets everything on restart and is not
// shared between instances): implement SessionStore on Redis or your database for production.
import type { Exchanged } from './client.ts';

export interface Session {
  /** The id in the browser's cookie. */
  id: string;
  /** The gateway session (`session.id` of the exchange): the `sid` a logout token names. */
  gatewaySessionId: string;
  /** The platform credential (`gwp_…`): only ever sent to the gateway, never to the browser. */
  platformCredential: string;
  /** ISO time the gateway session expires at. */
  expiresAt: string;
  user: Exchanged['user'];
  onboarding: Exchanged['onboarding'];
  permissions: Exchanged['permissions'];
  authentication: Exchanged['authentication'];
  /**
   * A support session (issue 35): who acts for the person (RFC 8693 §4.1 `act`) and until when.
   * Show it, and refuse on it what support must never do on your platform.
   */
  support?: { act: NonNullable<Exchanged['act']>; endsAt: string };
  /** What the application added at sign-in (the `onSignIn` hook), e.g. the person's name. */
  data: Record<string, unknown>;
}

export interface SessionStore {
  get(id: string): Promise<Session | undefined>;
  set(session: Session): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ends every session of a gateway session (back-channel logout); answers the ids it ended. */
  deleteByGatewaySession(gatewaySessionId: string): Promise<string[]>;
}

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  async get(id: string): Promise<Session | undefined> {
    const session = this.#sessions.get(id);
    if (session && Date.parse(session.expiresAt) <= Date.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session;
  }

  async set(session: Session): Promise<void> {
    this.#sessions.set(session.id, session);
  }

  async delete(id: string): Promise<void> {
    this.#sessions.delete(id);
  }

  async deleteByGatewaySession(gatewaySessionId: string): Promise<string[]> {
    const ended: string[] = [];
    for (const [id, session] of this.#sessions) {
      if (session.gatewaySessionId === gatewaySessionId) {
        this.#sessions.delete(id);
        ended.push(id);
      }
    }
    return ended;
  }

  /** How many sessions it holds (tests, the curious). */
  get size(): number {
    return this.#sessions.size;
  }
}
