import { useCallback, useEffect, useRef, useState } from 'react';
import type { IntlShape } from 'react-intl';
import { ApiProblem, type Schemas } from '../../../api.ts';
import { useSession } from '../../../session.tsx';

// Shared pieces of the platform registry pages: types from the contract, labels for people
// (from the `platforms` catalogue), date formatting in the page's language, and a small loader that ignores answers that arrive too late.

export type Platform = Schemas['Platform'];
export type PlatformWithCredentials = Schemas['PlatformWithCredentials'];
export type PlatformCredentials = Schemas['PlatformCredentials'];
export type OnboardingMode = Schemas['OnboardingMode'];
export type AuditEvent = Schemas['AuditEvent'];

/** The registry's key rule (contract: PlatformKey). */
export const PLATFORM_KEY_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;
/** Contract: AllowedReturnUrls maxItems. */
export const MAX_RETURN_URLS = 50;
/** Contract: the `search` parameter of listPlatforms. */
export const SEARCH_MAX_LENGTH = 100;

/** The onboarding modes in the order the form offers them; their words are `platforms.mode.<mode>` (and `.description`). */
export const MODES: readonly OnboardingMode[] = ['central', 'platform', 'none'];

export function modeLabel(intl: IntlShape, mode: OnboardingMode): string {
  return MODES.includes(mode) ? intl.formatMessage({ id: `platforms.mode.${mode}` }) : mode;
}

/** A person's word for an audit action (`platforms.action.<action>`); an action this build has no words for is shown as sent. */
export function actionLabel(intl: IntlShape, action: string): string {
  const id = `platforms.action.${action}`;
  return Object.hasOwn(intl.messages, id) ? intl.formatMessage({ id }) : action;
}

export function formatDateTime(intl: IntlShape, value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : intl.formatDate(date, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDate(intl: IntlShape, value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : intl.formatDate(date, { dateStyle: 'medium' });
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
