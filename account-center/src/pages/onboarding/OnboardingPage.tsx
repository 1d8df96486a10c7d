import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { resumeTransaction, sortFields, type OnboardingStatus, type RequirementField } from './onboardingFlow.ts';
import { SessionExpired } from './OnboardingNotices.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { LanguageContext } from '../../i18n/LanguageProvider.tsx';
import { usePlatformBrand } from '../../branding/PlatformBrandFrame.tsx';
import { AgreementsStep, NOTHING_PENDING, type PendingDocuments } from './AgreementsStep.tsx';
import { asProblem, OnboardingForm } from './OnboardingForm.tsx';
import './onboarding.css';

// Central onboarding (spec: Onboarding (user), client continuation):
//   /onboarding/{platformKey}?resume={transactionId}: write the values, complete, require
//   COMPLETE, then a full navigation to GET {gateway}/v1/auth/resume?transaction=…; the gateway
//   decides where the browser goes (the platform with a handoff, or back here while
//   incomplete, where the page shows the form again with the current status: it never
//   resumes by itself, so it cannot loop).
//   Without a valid resume UUID: write, complete, then back to /profile.
// A failed request is never completion: only a complete answering COMPLETE moves on.

export interface OnboardingPageProps {
  /** Leaves the account center with a full navigation (the resume, the sign-in). Tests pass their own. */
  leave?: (url: string) => void;
}

const navigateAway = (url: string) => window.location.assign(url);

export function OnboardingPage({ leave = navigateAway }: OnboardingPageProps) {
  const { platformKey = '' } = useParams();
  const [searchParams] = useSearchParams();
  const rawResume = searchParams.get('resume');
  const resume = resumeTransaction(rawResume);
  const { api, me } = useSession();
  const intl = useIntl();
  // The fields' texts come in the language the page shows (the gateway's `language` parameter).
  const locale = useContext(LanguageContext)?.locale;
  // The platform's branded name in the page's language when it has one (its frame, issue 27).
  const brandName = usePlatformBrand()?.name;
  const platformName = brandName ?? me?.memberships.find((membership) => membership.platformKey === platformKey)?.displayName ?? platformKey;
  const [loaded, setLoaded] = useState<{ fields: RequirementField[]; status: OnboardingStatus } | null>(null);
  const [loadError, setLoadError] = useState<ApiProblem | null>(null);
  const [expired, setExpired] = useState(false);
  // The platform's documents still to be accepted (the agreements step, issue 25).
  const [pendingDocuments, setPendingDocuments] = useState<PendingDocuments>(NOTHING_PENDING);
  const generation = useRef(0);

  const load = useCallback(async () => {
    const current = ++generation.current;
    setLoadError(null);
    setLoaded(null);
    const path = { params: { path: { platformKey } } };
    try {
      const [requirements, status] = await Promise.all([
        call(api.GET('/v1/onboarding/{platformKey}/requirements', { params: { path: { platformKey }, query: locale ? { language: locale } : {} } })),
        call(api.GET('/v1/onboarding/{platformKey}/status', path)),
      ]);
      if (current === generation.current) setLoaded({ fields: sortFields(requirements.fields), status });
    } catch (failure) {
      if (current !== generation.current) return;
      const problem = asProblem(intl, failure);
      if (problem.needsSignIn) setExpired(true);
      else setLoadError(problem);
    }
  }, [api, platformKey, locale]);

  useEffect(() => {
    void load();
    return () => {
      generation.current += 1;
    };
  }, [load]);

  if (expired) return <SessionExpired platformName={platformName} resume={resume !== null} leave={leave} />;

  return (
    <div className="onboarding-page">
      <PageTitle lead={intl.formatMessage({ id: resume ? 'onboarding.lead.resume' : 'onboarding.lead' }, { platform: platformName })}>
        {intl.formatMessage({ id: 'onboarding.title' }, { platform: platformName })}
      </PageTitle>
      {rawResume !== null && resume === null ? (
        <Notice tone="warning" title={intl.formatMessage({ id: 'onboarding.badResume.title' })}>
          <p>{intl.formatMessage({ id: 'onboarding.badResume.body' })}</p>
        </Notice>
      ) : null}
      {loaded && loaded.status.missingDocuments.length > 0 ? <AgreementsStep platformKey={platformKey} onPendingChange={setPendingDocuments} /> : null}
      <LoadState loading={!loaded} error={loadError} onRetry={() => void load()} what={intl.formatMessage({ id: 'onboarding.loading' }, { platform: platformName })}>
        {loaded ? (
          <OnboardingForm
            key={`${platformKey} ${resume ?? ''}`}
            language={locale}
            platformKey={platformKey}
            platformName={platformName}
            resume={resume}
            initialFields={loaded.fields}
            initialStatus={loaded.status}
            pendingDocuments={pendingDocuments}
            leave={leave}
            onExpired={() => setExpired(true)}
          />
        ) : null}
      </LoadState>
    </div>
  );
}
