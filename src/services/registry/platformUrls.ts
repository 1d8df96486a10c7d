import type { Logger } from 'pino';
import type { Db } from '../../db/knex.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { listPlatformRows, type PlatformRow } from './platformsRepository.ts';

/**
 * Production speaks only https to platforms: the handoff code travels to the callbackUrl and
 * the person to a return URL. The registry refuses http URLs on create, update and activation
 * in production (registry/rules.ts), but a platform stored before the rule (or before the
 * deployment became production) may still hold one; the start refuses it and the boot log
 * lists it, so an operator knows what to change before people meet the refusal.
 */

type UrlRecord = Pick<PlatformRow, 'callbackUrl' | 'backchannelLogoutUrl' | 'allowedReturnUrls'> & Partial<Pick<PlatformRow, 'eventReceiverUrl'>>;
type UrlField = 'callbackUrl' | 'backchannelLogoutUrl' | 'eventReceiverUrl' | 'allowedReturnUrls';

/** The stored URLs that are not https, by field. Stored URLs are parsed serializations: the scheme is lowercase. */
export function insecurePlatformUrls(record: UrlRecord): { field: UrlField; url: string }[] {
  const found: { field: UrlField; url: string }[] = [];
  if (record.callbackUrl !== null && !record.callbackUrl.startsWith('https:')) found.push({ field: 'callbackUrl', url: record.callbackUrl });
  if (record.backchannelLogoutUrl !== null && !record.backchannelLogoutUrl.startsWith('https:')) found.push({ field: 'backchannelLogoutUrl', url: record.backchannelLogoutUrl });
  if (record.eventReceiverUrl != null && !record.eventReceiverUrl.startsWith('https:')) found.push({ field: 'eventReceiverUrl', url: record.eventReceiverUrl });
  for (const url of record.allowedReturnUrls) if (!url.startsWith('https:')) found.push({ field: 'allowedReturnUrls', url });
  return found;
}

/**
 * The start, in production: a platform whose callbackUrl or return URLs use http cannot start a
 * login (409 CONFLICT naming the URL to change). The back-channel logout URL is not used by a
 * login; the outbox's delivery checks it.
 */
export function refuseInsecureLoginUrls(platform: PlatformRow, isProduction: boolean): void {
  if (!isProduction) return;
  // The URLs the gateway itself calls (logout tokens, pushed events) are not used by a login.
  const insecure = insecurePlatformUrls(platform).filter((entry) => entry.field !== 'backchannelLogoutUrl' && entry.field !== 'eventReceiverUrl');
  if (insecure.length === 0) return;
  const listed = insecure.map((entry) => `${entry.field} ${entry.url}`).join(', ');
  throw new ApiError(
    'CONFLICT',
    `The platform ${platform.platformKey} is registered with http URLs (${listed}); production requires https. An administrator must change them before anyone can sign in to it.`,
  );
}

/** Boot, in production: one warning per active platform with an http URL (PLATFORM_KEY, fields and URLs). */
export async function logInsecurePlatforms(db: Db, logger: Pick<Logger, 'warn'>): Promise<number> {
  let count = 0;
  let afterKey: string | null = null;
  for (;;) {
    const page: PlatformRow[] = await listPlatformRows(db, { active: true, afterKey, search: null, limit: 500 });
    for (const platform of page) {
      const insecure = insecurePlatformUrls(platform);
      if (insecure.length === 0) continue;
      count += 1;
      logger.warn(
        { platformKey: platform.platformKey, insecureUrls: insecure },
        `platform ${platform.platformKey} has http URLs (${insecure.map((entry) => entry.field).join(', ')}): production requires https, its logins are refused until they are changed`,
      );
    }
    if (page.length < 500) return count;
    afterKey = page[page.length - 1]!.platformKey;
  }
}
