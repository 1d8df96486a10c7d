// Support access's API to the other domains (npm run lint:deps, queries-belong-to-their-domain):
// a session's end ends its access (sessions/ending.ts), and GET /v1/me describes a support
// session (account/me.ts).
export { endSupportAccessOfSessions, type SupportEndedBy } from './sessionEnds.ts';
export { findSupportSessionDescription } from './repository.ts';
