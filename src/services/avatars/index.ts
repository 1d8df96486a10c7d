// The avatars' API to other domains (npm run lint:deps, no-cross-domain-queries): the periodic purge.
export { purgeExpiredTickets } from './repository.ts';
