/**
 * A readable name for the browser behind a session ("Firefox on Windows") from the User-Agent
 * the gateway stored at login. A few rules rather than a user-agent library: the list only
 * needs the person to recognise their devices, and the bundle stays small. Order matters:
 * Edge, Opera and Samsung Internet also say "Chrome"; Chrome also says "Safari"; Android also
 * says "Linux"; iPhones also say "like Mac OS X".
 */
import type { Formatter } from '../../i18n/problems.ts';

export interface Device {
  browser: string | null;
  os: string | null;
}

const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(?:Headless)?Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\bWindows\b/, 'Windows'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

const first = (rules: readonly [RegExp, string][], userAgent: string) => rules.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;

export function parseUserAgent(userAgent: string | null): Device {
  if (!userAgent) return { browser: null, os: null };
  return { browser: first(BROWSERS, userAgent), os: first(SYSTEMS, userAgent) };
}

/** "Chrome on Linux", "A browser on Android", "Firefox", or "Unknown device" (in the page's language). */
export function deviceName(intl: Formatter, userAgent: string | null): string {
  const { browser, os } = parseUserAgent(userAgent);
  if (browser && os) return intl.formatMessage({ id: 'sessions.device.both' }, { browser, os });
  if (browser) return browser;
  if (os) return intl.formatMessage({ id: 'sessions.device.os' }, { os });
  return intl.formatMessage({ id: 'sessions.device.unknown' });
}
