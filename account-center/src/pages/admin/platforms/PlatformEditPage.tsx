import { Link, useNavigate, useParams } from 'react-router';
import { useIntl } from 'react-intl';
import { call } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { PlatformForm } from './PlatformForm.tsx';
import { propertyNoun } from './platformForm.ts';
import type { DetailNotice } from './PlatformDetailPage.tsx';
import { useLoad } from './model.ts';

/** /admin/platforms/:platformKey/edit: the same form, the key read-only; only changes are sent. */
export function PlatformEditPage() {
  const { platformKey = '' } = useParams();
  const { api } = useSession();
  const navigate = useNavigate();
  const intl = useIntl();
  const detail = `/admin/platforms/${encodeURIComponent(platformKey)}`;
  const { data: platform, error, loading, reload } = useLoad(
    () => call(api.GET('/v1/platforms/{platformKey}', { params: { path: { platformKey } } })),
    [api, platformKey],
  );

  return (
    <>
      <p className="platforms-back">
        <Link to={detail}><span aria-hidden="true">← </span>{platform ? platform.displayName : intl.formatMessage({ id: 'platforms.edit.back' })}</Link>
      </p>
      <PageTitle lead={platform ? platform.platformKey : undefined}>{platform ? intl.formatMessage({ id: 'platforms.edit.title' }, { name: platform.displayName }) : intl.formatMessage({ id: 'platforms.edit.titlePlain' })}</PageTitle>
      <LoadState loading={loading && !platform} error={platform ? null : error} onRetry={() => void reload()} what={intl.formatMessage({ id: 'platforms.detail.what' })}>
        {platform ? (
          <PlatformForm
            mode="edit"
            platform={platform}
            cancelTo={detail}
            onSaved={(saved, changed) => {
              const state: DetailNotice = { notice: intl.formatMessage({ id: 'platforms.edit.saved' }, { changed: intl.formatList(changed.map((name) => propertyNoun(intl, name)), { type: 'conjunction' }) }) };
              navigate(`/admin/platforms/${encodeURIComponent(saved.platformKey)}`, { state });
            }}
          />
        ) : null}
      </LoadState>
    </>
  );
}
