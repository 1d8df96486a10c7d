// The data rights' API to other domains (npm run lint:deps, no-cross-domain-queries): the periodic purge.
export { purgeExpiredExports } from './exportRepository.ts';
