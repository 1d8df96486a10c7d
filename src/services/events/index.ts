// The security events' API to other domains (npm run lint:deps, no-cross-domain-queries): the push
// task's name for the worker, the periodic purge for maintenance.
export { purgeSettledEvents, SECURITY_EVENT_TASK, SETTLED_EVENT_RETENTION_DAYS } from './repository.ts';
