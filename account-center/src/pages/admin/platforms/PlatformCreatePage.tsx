import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { PlatformForm } from './PlatformForm.tsx';
import { SecretPanel } from './SecretPanel.tsx';
import type { DetailNotice } from './PlatformDetailPage.tsx';
import type { PlatformWithCredentials } from './model.ts';

/**
 * /admin/platforms/new: the form, then the new platform's client id and secret, once. The
 * secret is held only in this page's state: continuing (or leaving any other way) drops it.
 */
export function PlatformCreatePage() {
  const [created, setCreated] = useState<PlatformWithCredentials | null>(null);
  const navigate = useNavigate();

  if (created) {
    const detail = `/admin/platforms/${encodeURIComponent(created.platformKey)}`;
    return (
      <>
        <PageTitle lead={created.platformKey}>{`${created.displayName} is registered`}</PageTitle>
        <SecretPanel title="Client credentials" platformKey={created.platformKey} clientId={created.clientId ?? ''} clientSecret={created.clientSecret}>
          <button
            type="button"
            className="button"
            onClick={() => {
              const state: DetailNotice = { notice: `${created.displayName} is registered${created.active ? ' and active' : ' (inactive)'}.` };
              // Replace: Back from the platform goes to the list, not to an empty form.
              navigate(detail, { replace: true, state });
            }}
          >
            Continue to the platform
          </button>
        </SecretPanel>
      </>
    );
  }

  return (
    <>
      <p className="platforms-back">
        <Link to="/admin/platforms"><span aria-hidden="true">← </span>All platforms</Link>
      </p>
      <PageTitle lead="A platform is a product whose sign-in goes through the gateway. Its client secret is shown once, right after registering.">Register a platform</PageTitle>
      <PlatformForm mode="create" onCreated={setCreated} cancelTo="/admin/platforms" />
    </>
  );
}
