// The login domain's API to other domains (npm run lint:deps, no-cross-domain-queries): the periodic purge.
export { purgeExpiredStepUpChallenges } from './stepUpChallengesRepository.ts';
