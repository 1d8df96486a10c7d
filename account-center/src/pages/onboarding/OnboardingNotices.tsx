// The onboarding page's notices: the status the gateway calculated, and the page shown once
// the session has expired.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { signInUrl } from '../../session.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { Notice } from '../../components/Notice.tsx';
import { listOf, type OnboardingStatus, type RequirementField } from './onboardingFlow.ts';
import { useIntl } from '../../i18n/useIntl.ts';

/** The status as calculated by the gateway, e.g. after coming back from an incomplete resume. */
export function StatusNotice({ status, fields, platformName, resume }: { status: OnboardingStatus; fields: RequirementField[]; platformName: string; resume: boolean }) {
  const intl = useIntl();
  if (fields.length === 0) return null;
  const platform = platformName;
  if (status.status === 'COMPLETE') {
    return (
      <Notice tone="success" title={intl.formatMessage({ id: 'onboarding.status.complete' })}>
        <p>{resume ? intl.formatMessage({ id: 'onboarding.status.completeResume' }, { platform }) : intl.formatMessage({ id: 'onboarding.status.completeChange' })}</p>
      </Notice>
    );
  }
  const labels = status.missingFields.map((key) => fields.find((field) => field.fieldKey === key)?.label ?? key);
  return (
    <Notice title={labels.length > 0 ? intl.formatMessage({ id: 'onboarding.status.stillNeeds' }, { platform, fields: listOf(intl, labels) }) : intl.formatMessage({ id: 'onboarding.status.checkAndSave' })}>
      {resume ? <p>{intl.formatMessage({ id: 'onboarding.status.continueAfterSave' }, { platform })}</p> : null}
    </Notice>
  );
}

/**
 * An expired session: the person restarts authentication by signing in to the account
 * center again, back to this page. The login that led here cannot be resumed once its
 * session has ended, so the resume is left out: they save here, then return to the platform.
 */
export function SessionExpired({ platformName, resume, leave }: { platformName: string; resume: boolean; leave: (url: string) => void }) {
  const intl = useIntl();
  const platform = platformName;
  const location = useLocation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div ref={ref} className="onboarding-page onboarding-expired" tabIndex={-1}>
      <PageTitle>{intl.formatMessage({ id: 'onboarding.expired.title' })}</PageTitle>
      <div className="panel">
        <p>{intl.formatMessage({ id: 'onboarding.expired.body' })}</p>
        {resume ? (
          <p>{intl.formatMessage({ id: 'onboarding.expired.resume' }, { platform })}</p>
        ) : (
          <p>{intl.formatMessage({ id: 'onboarding.expired.back' }, { platform })}</p>
        )}
        <div className="actions">
          <button type="button" className="button" onClick={() => leave(signInUrl(location.pathname))}>{intl.formatMessage({ id: 'onboarding.expired.signIn' })}</button>
        </div>
      </div>
    </div>
  );
}
