// The account domain's API to other domains (npm run lint:deps, no-cross-domain-queries): the
// login's user upsert, a user by subject, a profile. Other domains import this file, never the
// account's query modules.
export { findUserBySub, upsertLoginUser } from './usersRepository.ts';
export { findProfile } from './profilesRepository.ts';
