// Platform documents (terms, privacy notices, custom consents) as stored: shared by the
// documents services, their repository and the onboarding status, below all three (GUIDE §7).
import type { components } from '../../generated/gateway.ts';

export type DocumentKind = components['schemas']['DocumentKind'];
export type DocumentText = components['schemas']['DocumentText'];
export type DocumentReference = components['schemas']['DocumentReference'];

/** A person's standing with one current document of a platform, as the onboarding statement reads it. */
export interface DocumentStanding {
  documentKey: string;
  kind: DocumentKind;
  /** The published version in effect now. */
  currentVersion: number;
  /** The oldest version an acceptance must reach: the latest material one in effect (the first version when none is material). */
  requiredVersion: number;
  /** The version the person's latest record accepts; null when there is none or it is a withdrawal. */
  acceptedVersion: number | null;
  /**
   * Only while the required version is not accepted: the requirement versions that the
   * document's blocking versions above the accepted one raised (null: published before grace
   * periods, in force). The grace rule (requirementGrace.ts) reads them.
   */
  blockingAbove?: (number | null)[] | null;
}

/** Terms and privacy notices must be accepted to use a platform; custom documents are optional consents. */
export function isRequiredKind(kind: DocumentKind): boolean {
  return kind !== 'custom';
}

/** Consent may be withdrawn only where the person can keep using the platform without it. */
export function isWithdrawableKind(kind: DocumentKind): boolean {
  return kind === 'custom';
}
