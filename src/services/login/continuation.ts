// Where the browser goes after a callback or resume: the account center while central
// onboarding is incomplete, otherwise the platform's registered callback with a handoff code.
import type { AppDeps } from '../../deps.ts';
import { letsThrough } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import type { OnboardingMode, PlatformRow } from '../registry/index.ts';
import type { OnboardingStatus } from '../onboarding/status.ts';
import { issueHandoff } from './handoff.ts';

/**
 * Where the browser goes next: the account center while central onboarding is
 * incomplete, otherwise the platform's registered callback with a handoff code.
 * Destinations come only from the registry and configuration.
 */
export async function continueTo(
  deps: AppDeps,
  db: AppDeps['db'],
  step: { transactionId: string; mode: OnboardingMode; platform: PlatformRow; userId: string; sessionId: string; onboarding: OnboardingStatus; platformState: string | null },
): Promise<URL> {
  if (goesToCentralOnboarding(step.mode, step.onboarding)) {
    return onboardingUrl(deps, step.platform, step.transactionId);
  }
  if (!step.platform.callbackUrl) throw new ApiError('PLATFORM_CALLBACK_NOT_CONFIGURED', 'The platform has no callback URL.');
  // Counted once inserted (its own statement, committed when it answers).
  const target = await issueHandoff(db, deps.config.authHandoffTtlSeconds, {
    transactionId: step.transactionId,
    platformId: step.platform.id,
    userId: step.userId,
    sessionId: step.sessionId,
    onboarding: step.onboarding,
    callbackUrl: step.platform.callbackUrl,
    platformState: step.platformState,
  });
  deps.metrics?.handoffsIssued.inc();
  return target;
}


/** Central onboarding first: the platform asked for it, it is incomplete, and it can be completed centrally. */
export function goesToCentralOnboarding(mode: OnboardingMode, onboarding: OnboardingStatus): boolean {
  return mode === 'central' && !letsThrough(onboarding.status) && onboarding.canCompleteCentrally;
}


/** Central onboarding at the account center, which resumes this transaction when it is complete. */
export function onboardingUrl(deps: AppDeps, platform: PlatformRow, transactionId: string): URL {
  const target = new URL(`${deps.config.accountCenterUrl}/onboarding/${encodeURIComponent(platform.platformKey)}`);
  target.searchParams.set('resume', transactionId);
  return target;
}
