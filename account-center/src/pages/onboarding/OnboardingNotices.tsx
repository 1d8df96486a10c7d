// The onboarding page's notices: the status the gateway calculated, and the page shown once
// the session has expired.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { signInUrl } from '../../session.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { Notice } from '../../components/Notice.tsx';
import { listOf, type OnboardingStatus, type RequirementField } from './onboardingFlow.ts';

/** The status as calculated by the gateway, e.g. after coming back from an incomplete resume. */
export function StatusNotice({ status, fields, platformName, resume }: { status: OnboardingStatus; fields: RequirementField[]; platformName: string; resume: boolean }) {
  if (fields.length === 0) return null;
  if (status.status === 'COMPLETE') {
    return (
      <Notice tone="success" title="Your details are complete.">
        <p>{resume ? `Check them, then choose “Save and continue” to go on to ${platformName}.` : 'You can change them here at any time.'}</p>
      </Notice>
    );
  }
  const labels = status.missingFields.map((key) => fields.find((field) => field.fieldKey === key)?.label ?? key);
  return (
    <Notice title={labels.length > 0 ? `${platformName} still needs: ${listOf(labels)}.` : 'Check your details and save them to finish.'}>
      {resume ? <p>{`Once they are saved, you continue to ${platformName}.`}</p> : null}
    </Notice>
  );
}

/**
 * An expired session: the person restarts authentication by signing in to the account
 * center again, back to this page. The login that led here cannot be resumed once its
 * session has ended, so the resume is left out: they save here, then return to the platform.
 */
export function SessionExpired({ platformName, resume, leave }: { platformName: string; resume: boolean; leave: (url: string) => void }) {
  const location = useLocation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div ref={ref} className="onboarding-page onboarding-expired" tabIndex={-1}>
      <PageTitle>Your session has expired</PageTitle>
      <div className="panel">
        <p>To keep your details safe, sign in again before saving them. Anything entered on this page that was not saved is not kept.</p>
        {resume ? (
          <p>
            {`Your sign-in to ${platformName} can no longer continue from this page. Sign in again here and save your details; then go back to ${platformName} and sign in there again: it will find the details you saved.`}
          </p>
        ) : (
          <p>{`After signing in you come back to your details for ${platformName}.`}</p>
        )}
        <div className="actions">
          <button type="button" className="button" onClick={() => leave(signInUrl(location.pathname))}>Sign in again</button>
        </div>
      </div>
    </div>
  );
}
