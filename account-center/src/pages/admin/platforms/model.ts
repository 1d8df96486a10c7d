import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem, type Schemas } from '../../../api.ts';
import { useSession } from '../../../session.tsx';

// Shared pieces of the platform registry pages: types from the contract, labels for people,
// date formatting, and a small loader that ignores answers that arrive too late.

export type Platform = Schemas['Platform'];
export type PlatformWithCredentials = Schemas['PlatformWithCredentials'];
export type PlatformCredentials = Schemas['PlatformCredentials'];
export type OnboardingMode = Schemas['OnboardingMode'];
export type AuditEvent = Schemas['AuditEvent'];

/** The registry's key rule (contract: PlatformKey). */
export const PLATFORM_KEY_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;
/** Shown wherever a platform's handoffChallengeRequired is off: the risk, and what to do. */
export const HANDOFF_CHALLENGE_OFF_WARNING =
  'Warning: without a required handoff challenge, a sign-in link from someone else’s login can sign a person in as that someone (login CSRF). Turn it off only while the platform’s back end cannot send a challenge, and turn it on again as soon as it can.';
export const PLATFORM_KEY_HINT = 'An uppercase letter, then 1 to 63 uppercase letters, digits or underscores, for example DEMO_PLATFORM. It cannot be changed later.';
/** Contract: AllowedReturnUrls maxItems. */
export const MAX_RETURN_URLS = 50;
/** Contract: the `search` parameter of listPlatforms. */
export const SEARCH_MAX_LENGTH = 100;

export const MODE_OPTIONS: { value: OnboardingMode; label: string; description: string }[] = [
  { value: 'central', label: 'Central', description: 'The account center onboards users before they reach the platform.' },
  { value: 'platform', label: 'Platform', description: 'The platform onboards users in its own pages (see the onboarding path).' },
  { value: 'none', label: 'None', description: 'No onboarding: users go straight to the platform.' },
];

export function modeLabel(mode: OnboardingMode): string {
  return MODE_OPTIONS.find((option) => option.value === mode)?.label ?? mode;
}

const ACTION_LABELS: Record<string, string> = {
  'platform.create': 'Registered',
  'platform.update': 'Updated',
  'platform.deactivate': 'Deactivated',
  'platform.activate': 'Activated',
  'platform.rotate_credentials': 'Client secret rotated',
  'onboarding_field.create': 'Onboarding field added',
  'onboarding_field.update': 'Onboarding field changed',
  'onboarding_field.archive': 'Onboarding field archived',
  'session.revoke': 'Session revoked',
};

/** A person's word for an audit action; an action this build does not know is shown as sent. */
export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

export function formatDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateOnly.format(date);
}

export function toProblem(failure: unknown): ApiProblem {
  return failure instanceof ApiProblem ? failure : new ApiProblem(0, null, failure instanceof Error ? failure.message : undefined);
}

/**
 * Loads with `load` whenever `deps` change, keeping only the latest answer. A 401 (the session
 * is over) reloads the session, so the guard sends the person to sign in again.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const { reload: reloadSession } = useSession();
  const [state, setState] = useState<{ data: T | undefined; error: ApiProblem | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const generation = useRef(0);
  const run = useCallback(load, deps);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, error: null, loading: true }));
    try {
      const data = await run();
      if (mine === generation.current) setState({ data, error: null, loading: false });
    } catch (failure) {
      const problem = toProblem(failure);
      if (mine !== generation.current) return;
      setState((previous) => ({ ...previous, error: problem, loading: false }));
      if (problem.needsSignIn) void reloadSession();
    }
  }, [run, reloadSession]);

  useEffect(() => {
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  return { ...state, reload, setData: (data: T) => setState({ data, error: null, loading: false }) };
}
