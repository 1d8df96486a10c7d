// The onboarding domain's API to other domains (npm run lint:deps, no-cross-domain-queries): the
// login's onboarding inputs and the document administration's requirement version and count.
// Other domains import this file, never onboarding's query modules.
export { activeFieldsWithValues, countCompleteMemberships, findCompletedRequirementVersion } from './onboardingRepository.ts';
export { bumpRequirementVersion } from './onboardingFieldsRepository.ts';
