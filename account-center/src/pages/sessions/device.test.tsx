import { describe, expect, it } from 'vitest';
import { deviceName, parseUserAgent } from './device.ts';
import { englishIntl, intlFor } from '../../i18n/useIntl.ts';

// Real User-Agent strings, as browsers send them (2024-2025 versions).
const AGENTS: [string, string][] = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on Windows'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Edge on Windows'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Safari/605.1.15', 'Safari on macOS'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on macOS'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on macOS'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 'Chrome on Linux'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
  ['Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0', 'Firefox on Android'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1', 'Chrome on iOS'],
  ['Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15', 'Firefox on iOS'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/131.0.2903.92 Version/18.0 Mobile/15E148 Safari/604.1', 'Edge on iOS'],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0', 'Opera on Windows'],
];

describe('deviceName', () => {
  it.each(AGENTS)('%s → %s', (userAgent, expected) => {
    expect(deviceName(englishIntl(), userAgent)).toBe(expected);
  });

  it('says what it knows, and never shows the raw string', () => {
    expect(deviceName(englishIntl(), null)).toBe('Unknown device');
    expect(deviceName(englishIntl(), '')).toBe('Unknown device');
    expect(deviceName(englishIntl(), 'curl/8.5.0')).toBe('Unknown device');
    expect(deviceName(englishIntl(), 'Mozilla/5.0 (X11; Linux x86_64) SomeBrowser/1.0')).toBe('A browser on Linux');
    expect(parseUserAgent('Mozilla/5.0 (Windows NT 10.0) Gecko/20100101 Firefox/133.0')).toEqual({ browser: 'Firefox', os: 'Windows' });
  });

  it('names the device in the page\'s language', () => {
    const german = intlFor({ language: 'de', locale: 'de-DE' });
    expect(deviceName(german, 'Mozilla/5.0 (Windows NT 10.0) Gecko/20100101 Firefox/133.0')).toBe('Firefox unter Windows');
    expect(deviceName(german, 'curl/8.5.0')).toBe('Unbekanntes Gerät');
  });
});
