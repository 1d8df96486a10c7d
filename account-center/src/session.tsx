import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiProblem, call, type Api, type Schemas } from './api.ts';
import { gatewayBaseUrl, type AccountCenterConfig } from './config.ts';

export type Me = Schemas['Me'];
export type Permission = Schemas['Permission'];

interface SessionState {
  config: AccountCenterConfig;
  api: Api;
  /** undefined while loading, null without a session. */
  me: Me | null | undefined;
  /** A failure other than "not signed in" (the gateway unreachable…). */
  error: ApiProblem | null;
  reload(): Promise<void>;
  /** Forget what the account center holds about the session (it holds no token). */
  forget(): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ config, api, children }: { config: AccountCenterConfig; api: Api; children: ReactNode }) {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [error, setError] = useState<ApiProblem | null>(null);

  const reload = useCallback(async () => {
    setError(null);
    try {
      setMe(await call(api.GET('/v1/me')));
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      if (problem.needsSignIn) setMe(null);
      else {
        setMe(null);
        setError(problem);
      }
    }
  }, [api]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const value = useMemo<SessionState>(() => ({ config, api, me, error, reload, forget: () => setMe(null) }), [config, api, me, error, reload]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export function hasPermission(me: Me | null | undefined, permission: Permission): boolean {
  if (!me) return false;
  // platforms:admin stands in for every permission but support:access, which is granted on its own (issue 35).
  return me.permissions.includes(permission) || (permission !== 'support:access' && me.permissions.includes('platforms:admin'));
}

/**
 * The account center's own sign-in, run by its server: it starts a login for the account
 * center's platform and, after the handoff, sends the browser back to `returnTo` (a path of
 * the account center; anything else is refused by the server).
 */
/**
 * The gateway's browser sign-out (GET /v1/auth/logout) for the account center's platform,
 * coming back to /signed-out here, one of the platform's allowed return URLs. Without a
 * `signOutToken` the gateway asks the person to confirm first.
 */
export function signOutUrl(config: AccountCenterConfig, signOutToken?: string): string {
  const query = new URLSearchParams({ platformKey: config.authPlatformKey, returnTo: `${window.location.origin}/signed-out` });
  if (signOutToken) query.set('signOutToken', signOutToken);
  return `${gatewayBaseUrl(config)}/v1/auth/logout?${query}`;
}

/**
 * The one-step sign-out: the proof that the person asked here (a sign-out token for this
 * browser's session, from a credentialed request the gateway origin-checks), then the gateway's
 * sign-out with it, which then does not ask again. Without a token (the gateway unreachable, the
 * session already over) the plain URL: the gateway asks the person, or has nothing to end.
 */
export async function oneStepSignOutUrl(api: Api, config: AccountCenterConfig): Promise<string> {
  try {
    const { signOutToken } = await call(api.POST('/v1/auth/logout/token'));
    return signOutUrl(config, signOutToken);
  } catch {
    return signOutUrl(config);
  }
}

export function signInUrl(returnTo: string = window.location.pathname + window.location.search): string {
  return `/auth/login?returnTo=${encodeURIComponent(returnTo)}`;
}
