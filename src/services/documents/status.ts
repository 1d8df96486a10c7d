import type { DocumentReference, DocumentStanding } from '../../domain/documents.ts';
import { isRequiredKind } from '../../domain/documents.ts';

// A person's standing with a platform's documents, worked out from what the onboarding
// statement reads (DOCUMENT_STANDINGS_JSON): what blocks the handoff, what is accepted, and
// what the account center shows.

export type AgreementState = 'pending' | 'accepted' | 'updated' | 'not_accepted' | 'withdrawn';

/**
 * Blocking: a required document (terms, privacy) whose acceptance does not reach its required
 * version (the latest material one in effect). A non-material newer version blocks no one.
 */
export function isMissing(document: Pick<DocumentStanding, 'kind' | 'requiredVersion' | 'acceptedVersion'>): boolean {
  return isRequiredKind(document.kind) && (document.acceptedVersion === null || document.acceptedVersion < document.requiredVersion);
}

export function missingDocumentsOf(documents: readonly DocumentStanding[]): DocumentReference[] {
  return documents.filter(isMissing).map((document) => ({ documentKey: document.documentKey, kind: document.kind, version: document.currentVersion }));
}

export function acceptedDocumentsOf(documents: readonly DocumentStanding[]): DocumentReference[] {
  return documents
    .filter((document) => document.acceptedVersion !== null)
    .map((document) => ({ documentKey: document.documentKey, kind: document.kind, version: document.acceptedVersion! }));
}

/** What the account center shows for one document; `withdrawn` needs the latest record's action. */
export function agreementStateOf(document: DocumentStanding, latestAction: 'accept' | 'withdraw' | null): AgreementState {
  if (isMissing(document)) return 'pending';
  if (document.acceptedVersion === null) return latestAction === 'withdraw' ? 'withdrawn' : 'not_accepted';
  return document.acceptedVersion >= document.currentVersion ? 'accepted' : 'updated';
}
