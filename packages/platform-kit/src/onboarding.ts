// The onboarding helpers of a platform in `platform` onboarding mode: the platform renders its
// own onboarding page, and the gateway says what is still missing. Two kinds of requirement:
// the platform's required fields, and its required documents (terms, privacy notice) whose
// current material version the person has not accepted (the gateway's issue 25). Either keeps
// the person's onboarding status from COMPLETE.
import type { GatewayClient, OnboardingRequirements, components } from './client.ts';
import type { Session } from './sessions.ts';

/** A document and version, as the exchange and the onboarding status name it. */
export type DocumentReference = components['schemas']['DocumentReference'];
/** One current document of the platform with the person's state (`pending`, `accepted`, …) and its text. */
export type AgreementDocument = components['schemas']['AgreementDocument'];

/** What the platform's onboarding page needs, read fresh from the gateway. */
export interface OnboardingToDo extends OnboardingRequirements {
  /** Required fields that are still empty. */
  missingFields: string[];
  /**
   * Required documents the person still has to accept (the current material version): show
   * each with one explicit action, and record each acceptance with
   * `POST /v1/agreements/{platformKey}/acceptances` (version, language shown, its sha256).
   */
  missingDocuments: DocumentReference[];
  /** The versions the person's record accepts now (a withdrawn consent is absent). */
  acceptedDocuments: DocumentReference[];
  /** The platform's current documents with the person's state and their texts, to render them. */
  documents: AgreementDocument[];
}

/**
 * Whether the person still has to go through the platform's onboarding page, from what the
 * exchange said at sign-in (kept in the session): a status short of COMPLETE, or a document
 * still to accept. It does not call the gateway; onboardingToDo reads the current state.
 * GRACE (the gateway's issue 36) is not such a status: the person may use the platform until
 * the date onboardingGrace gives; whether to remind them is the platform's choice.
 */
export function needsOnboarding(session: Session): boolean {
  if (session.onboarding.status === 'GRACE') return false;
  return session.onboarding.status !== 'COMPLETE' || session.onboarding.missingDocuments.length > 0;
}

/** A change the platform published with a date (GRACE): what the person lacks, and from when it blocks. */
export interface OnboardingGrace {
  /** From this time on (ISO 8601) the person's next sign-in goes through onboarding. */
  until: string;
  /** Required fields still empty (none: the person only confirms the changed form). */
  missingFields: string[];
  /** Required documents still to accept. */
  missingDocuments: DocumentReference[];
}

/** The grace the exchange reported at sign-in, or null when the status is not GRACE. For a reminder ("… from <date>") with a link to the onboarding page. */
export function onboardingGrace(session: Session): OnboardingGrace | null {
  const { status, graceUntil, missingFields, missingDocuments } = session.onboarding;
  if (status !== 'GRACE' || !graceUntil) return null;
  return { until: graceUntil, missingFields, missingDocuments };
}

/** The fields, the documents and the person's current standing, in three parallel reads with the person's platform credential. */
export async function onboardingToDo(client: GatewayClient, platformKey: string): Promise<OnboardingToDo> {
  const params = { params: { path: { platformKey } } };
  const [requirements, status, agreements] = await Promise.all([
    client.GET('/v1/onboarding/{platformKey}/requirements', params),
    client.GET('/v1/onboarding/{platformKey}/status', params),
    client.GET('/v1/agreements/{platformKey}', params),
  ]);
  if (!requirements.data) throw new Error(`the gateway answered ${requirements.response.status} for the onboarding requirements`);
  if (!status.data) throw new Error(`the gateway answered ${status.response.status} for the onboarding status`);
  if (!agreements.data) throw new Error(`the gateway answered ${agreements.response.status} for the platform's agreements`);
  return {
    ...requirements.data,
    missingFields: status.data.missingFields,
    missingDocuments: status.data.missingDocuments,
    acceptedDocuments: status.data.acceptedDocuments,
    documents: agreements.data.documents,
  };
}
