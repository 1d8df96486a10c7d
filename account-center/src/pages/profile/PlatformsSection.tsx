import { useEffect } from 'react';
import { Link } from 'react-router';
import { useSession } from '../../session.tsx';
import { STATUS_TEXT } from './profileModel.ts';
import { useIntl } from '../../i18n/useIntl.ts';

/** The platforms the person belongs to (from /v1/me), with each one's onboarding status. */
export function PlatformsSection() {
  const { me, reload } = useSession();
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string>) => intl.formatMessage({ id: `profile.platforms.${id}` }, values);
  // The statuses are calculated when /v1/me is read: read it again when the page opens.
  useEffect(() => {
    void reload();
  }, [reload]);

  const memberships = me?.memberships ?? [];
  if (memberships.length === 0) return <p>{say('none')}</p>;
  return (
    <div className="table-wrap">
      <table className="profile-table">
        <caption className="visually-hidden">{say('caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{say('platform')}</th>
            <th scope="col">{say('key')}</th>
            <th scope="col">{say('onboarding')}</th>
            <th scope="col">{say('missing')}</th>
            <th scope="col"><span className="visually-hidden">{say('action')}</span></th>
          </tr>
        </thead>
        <tbody>
          {memberships.map((membership) => {
            const known = STATUS_TEXT[membership.onboarding.status];
            const status = known ? { ...known, label: intl.formatMessage({ id: `profile.status.${membership.onboarding.status}` }) } : { label: membership.onboarding.status, className: 'badge' };
            const missing = membership.onboarding.missingFields.length;
            return (
              <tr key={membership.platformKey}>
                <th scope="row">{membership.displayName}</th>
                <td data-label={say('key')}><code className="profile-key">{membership.platformKey}</code></td>
                <td data-label={say('onboarding')}><span className={status.className}>{status.label}</span></td>
                <td data-label={say('missing')}>{intl.formatNumber(missing)}</td>
                <td>
                  {membership.onboarding.status !== 'COMPLETE' ? (
                    <Link to={`/onboarding/${encodeURIComponent(membership.platformKey)}`} aria-label={say('completeFor', { platform: membership.displayName })}>
                      {say('complete')}
                    </Link>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
