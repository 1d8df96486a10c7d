// Security Event Tokens to platforms (RFC 8417): the event types, the token's type, and what a
// recorded event carries. Pure module: no I/O.
//
// The event type URIs are this gateway's own (RFC 8417 §2.2 lets an issuer define its event
// identifiers); they are listed in the contract (SecurityEventType) and in
// docs/platform-integration.md. A receiver ignores types it does not know (RFC 8417 §2.2 asks
// recipients to ignore events they do not understand), so new ones can be added.

/** The JWS `typ` of a SET (RFC 8417 §2.3, explicit typing). */
export const SET_TYPE = 'secevent+jwt';
/** The media type of a pushed SET (RFC 8935 §2). */
export const SET_MEDIA_TYPE = 'application/secevent+jwt';

const PREFIX = 'urn:auth-gateway:secevent:';

export const SECURITY_EVENT_TYPES = {
  /** The person deleted their account; the data is kept until `erase_after`. */
  accountDeletionScheduled: `${PREFIX}account-deletion-scheduled`,
  /** The retention ended: the gateway erased the person's data (RISC's account-purged, for this gateway). */
  accountErased: `${PREFIX}account-erased`,
  /** The person left this platform (account center, "Leave this platform"). */
  platformLeft: `${PREFIX}platform-left`,
  /** Profile properties that this platform's schema binds changed (the platform's field keys, never values). */
  profileChanged: `${PREFIX}profile-changed`,
  /** The person withdrew an agreement (the terms documents). */
  consentWithdrawn: `${PREFIX}consent-withdrawn`,
  /** An operator signed in to this platform as the person (support access, issue 35). */
  supportAccessStarted: `${PREFIX}support-access-started`,
  /** That support access ended (by the operator, the person, or time). */
  supportAccessEnded: `${PREFIX}support-access-ended`,
} as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[keyof typeof SECURITY_EVENT_TYPES];

/** Event payloads: only what the event says, never a profile value or a secret. */
export type SecurityEventPayload = Record<string, string | number | boolean | string[]>;

export type SecurityEventStatus = 'pending' | 'delivered' | 'failed';

/** A recorded event for one platform, as it is signed. */
export interface SecurityEventRow {
  id: string;
  platformId: string;
  userId: string;
  eventType: string;
  payload: SecurityEventPayload;
  mode: 'push' | 'poll';
  status: SecurityEventStatus;
  attempts: number;
  errorCode: string | null;
  lastError: string | null;
  occurredAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
  failedAt: Date | null;
}
