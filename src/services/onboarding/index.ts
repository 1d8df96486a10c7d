// The onboarding domain's API to other domains (npm run lint:deps, no-cross-domain-queries): the
// login's onboarding inputs, the document administration's requirement version and count, and a
// platform's own (ask/own) values for the profile read.
// Other domains import this file, never onboarding's query modules.
export { activeFieldsWithValues, countCompleteMemberships, findCompletedRequirementVersion, platformProfileBindings } from './onboardingRepository.ts';
export { bumpRequirementVersion } from './onboardingFieldsRepository.ts';
