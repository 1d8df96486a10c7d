import { Link } from 'react-router';
import type { Me } from '../session.tsx';
import { Notice } from './Notice.tsx';
import { useIntl } from '../i18n/useIntl.ts';

/**
 * Issue 36: a platform changed what it asks and gave people until a date. Signing in still
 * works (the status is GRACE), so this only says what it will need and from when, with a
 * link to the form; it blocks nothing.
 */
export function GraceNotices({ memberships }: { memberships: Me['memberships'] }) {
  const intl = useIntl();
  const inGrace = memberships.filter((membership) => membership.onboarding.status === 'GRACE' && membership.onboarding.graceUntil);
  if (inGrace.length === 0) return null;
  return (
    <>
      {inGrace.map((membership) => {
        const { missingFields, missingDocuments, graceUntil } = membership.onboarding;
        const fields = missingFields.length;
        const documents = missingDocuments.length;
        const what =
          fields > 0 && documents > 0
            ? intl.formatMessage({ id: 'common.grace.fieldsAndDocuments' }, { fields, documents })
            : fields > 0
              ? intl.formatMessage({ id: 'common.grace.fields' }, { count: fields })
              : documents > 0
                ? intl.formatMessage({ id: 'common.grace.documents' }, { count: documents })
                : intl.formatMessage({ id: 'common.grace.confirm' });
        const date = intl.formatDate(graceUntil, { dateStyle: 'long', timeStyle: 'short' });
        const platform = membership.displayName;
        return (
          <Notice key={membership.platformKey} tone="warning" title={intl.formatMessage({ id: 'common.grace.willNeed' }, { platform, what, date })}>
            <p>
              {intl.formatMessage({ id: 'common.grace.untilThen' }, { platform })}{' '}
              <Link to={`/onboarding/${encodeURIComponent(membership.platformKey)}`} aria-label={intl.formatMessage({ id: 'common.grace.completeFor' }, { platform })}>
                {intl.formatMessage({ id: 'common.grace.complete' })}
              </Link>
            </p>
          </Notice>
        );
      })}
    </>
  );
}
