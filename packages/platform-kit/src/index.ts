// @auth-gateway/platform-kit: sign people in through the auth gateway from a Node back end.
// Express: `@auth-gateway/platform-kit/express`; the token verification alone: `…/verify`;
// Security Event Tokens (push and poll): createSecurityEventReceiver.
export { createPlatformKit, type PlatformKit, type PlatformKitOptions, type KitPaths, type StartOptions, type StepUpOptions } from './kit.ts';
export { type OnboardingToDo, type OnboardingGrace, type DocumentReference, type AgreementDocument } from './onboarding.ts';
export { MemorySessionStore, type Session, type SessionStore } from './sessions.ts';
export { clientWithCredential, clientWithPlatformSecret, anonymousClient, type GatewayClient, type ClientOptions, type Exchanged, type OnboardingRequirements, type Problem, type paths, type components } from './client.ts';
export { gatewayKeySet, verifyGatewayToken, verifyLogoutToken, GatewayTokenError, BACKCHANNEL_LOGOUT_EVENT, type GatewayKeySet, type GatewayTokenChecks } from './verify.ts';
export { failurePage, escapeHtml, type SignInFailure } from './pages.ts';
export { AmbiguousCookieError } from './cookies.ts';
export { CLOCK_SKEW_SECONDS, stepUpShortfall, type StepUpAsked } from './stepUp.ts';
export { createSecurityEventReceiver, SecurityEventRefused, type SecurityEvent, type SecurityEventType, type SecurityEventPayloads, type SecurityEventReceiver, type SecurityEventReceiverOptions, type SetErrorCode, type PollOptions, type PollOutcome } from './events.ts';
