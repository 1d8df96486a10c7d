// The sessions' API to the HTTP edge (npm run lint:deps, queries-belong-to-their-domain): the
// session and platform-credential checks src/api/security.ts runs on each authenticated request.
export { findPlatformCredentialByDigest, findSessionByTokenDigest, touchSession } from './repository.ts';
export type { EndReason } from './repository.ts';
