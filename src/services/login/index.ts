// The login domain's API to other domains (npm run lint:deps, no-cross-domain-queries): the periodic
// purge, and the support sign-in's step-up rule (supportAccess/signIn.ts).
export { isStepUpChallenge, purgeExpiredStepUpChallenges } from './stepUpChallengesRepository.ts';
export { stepUpTokenMissing } from './freshSignIn.ts';
