import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useIntl } from 'react-intl';
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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string>) => intl.formatMessage({ id }, values);

  if (created) {
    const detail = `/admin/platforms/${encodeURIComponent(created.platformKey)}`;
    return (
      <>
        <PageTitle lead={created.platformKey}>{t('platforms.create.registered', { name: created.displayName })}</PageTitle>
        <SecretPanel title={t('platforms.secret.credentials')} platformKey={created.platformKey} clientId={created.clientId ?? ''} clientSecret={created.clientSecret}>
          <button
            type="button"
            className="button"
            onClick={() => {
              const state: DetailNotice = { notice: t(created.active ? 'platforms.create.registeredActive' : 'platforms.create.registeredInactive', { name: created.displayName }) };
              // Replace: Back from the platform goes to the list, not to an empty form.
              navigate(detail, { replace: true, state });
            }}
          >
            {t('platforms.create.continue')}
          </button>
        </SecretPanel>
      </>
    );
  }

  return (
    <>
      <p className="platforms-back">
        <Link to="/admin/platforms"><span aria-hidden="true">← </span>{t('platforms.all')}</Link>
      </p>
      <PageTitle lead={t('platforms.create.lead')}>{t('platforms.create.title')}</PageTitle>
      <PlatformForm mode="create" onCreated={setCreated} cancelTo="/admin/platforms" />
    </>
  );
}
