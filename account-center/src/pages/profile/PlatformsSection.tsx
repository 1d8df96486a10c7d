import { useEffect } from 'react';
import { Link } from 'react-router';
import { useSession } from '../../session.tsx';
import { STATUS_TEXT } from './profileModel.ts';

/** The platforms the person belongs to (from /v1/me), with each one's onboarding status. */
export function PlatformsSection() {
  const { me, reload } = useSession();
  // The statuses are calculated when /v1/me is read: read it again when the page opens.
  useEffect(() => {
    void reload();
  }, [reload]);

  const memberships = me?.memberships ?? [];
  if (memberships.length === 0) return <p>You have not signed in to any platform through the gateway yet.</p>;
  return (
    <div className="table-wrap">
      <table className="profile-table">
        <caption className="visually-hidden">Your platforms and their onboarding</caption>
        <thead>
          <tr>
            <th scope="col">Platform</th>
            <th scope="col">Key</th>
            <th scope="col">Onboarding</th>
            <th scope="col">Missing required fields</th>
            <th scope="col"><span className="visually-hidden">Action</span></th>
          </tr>
        </thead>
        <tbody>
          {memberships.map((membership) => {
            const status = STATUS_TEXT[membership.onboarding.status] ?? { label: membership.onboarding.status, className: 'badge' };
            const missing = membership.onboarding.missingFields.length;
            return (
              <tr key={membership.platformKey}>
                <th scope="row">{membership.displayName}</th>
                <td data-label="Key"><code className="profile-key">{membership.platformKey}</code></td>
                <td data-label="Onboarding"><span className={status.className}>{status.label}</span></td>
                <td data-label="Missing required fields">{missing}</td>
                <td>
                  {membership.onboarding.status !== 'COMPLETE' ? (
                    <Link to={`/onboarding/${encodeURIComponent(membership.platformKey)}`} aria-label={`Complete onboarding for ${membership.displayName}`}>
                      Complete onboarding
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
