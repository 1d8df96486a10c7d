/** The run-time configuration the account center's server publishes at /config.json. */
export interface AccountCenterConfig {
  /** The gateway API including /v1 (AUTH_BACKEND_URL). */
  authBackendUrl: string;
  /** The account center's own platform, and the default of /onboarding (AUTH_PLATFORM_KEY). */
  authPlatformKey: string;
}

export async function loadConfig(fetchImpl: typeof fetch = fetch): Promise<AccountCenterConfig> {
  const response = await fetchImpl('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`the account center's configuration could not be loaded (${response.status})`);
  const config = (await response.json()) as Partial<AccountCenterConfig>;
  if (typeof config.authBackendUrl !== 'string' || typeof config.authPlatformKey !== 'string') {
    throw new Error("the account center's configuration is incomplete");
  }
  return { authBackendUrl: config.authBackendUrl, authPlatformKey: config.authPlatformKey };
}

/** The gateway's origin and base path without the trailing /v1 (the contract's paths carry it). */
export function gatewayBaseUrl(config: AccountCenterConfig): string {
  return config.authBackendUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}
