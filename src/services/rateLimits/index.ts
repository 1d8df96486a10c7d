// The rate limits' API to other domains (npm run lint:deps, no-cross-domain-queries).
export { type StatementRateLimit } from './repository.ts';
