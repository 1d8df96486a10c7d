import { Link, useNavigate, useParams } from 'react-router';
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
  const detail = `/admin/platforms/${encodeURIComponent(platformKey)}`;
  const { data: platform, error, loading, reload } = useLoad(
    () => call(api.GET('/v1/platforms/{platformKey}', { params: { path: { platformKey } } })),
    [api, platformKey],
  );

  return (
    <>
      <p className="platforms-back">
        <Link to={detail}><span aria-hidden="true">← </span>{platform ? platform.displayName : 'The platform'}</Link>
      </p>
      <PageTitle lead={platform ? platform.platformKey : undefined}>{platform ? `Edit ${platform.displayName}` : 'Edit platform'}</PageTitle>
      <LoadState loading={loading && !platform} error={platform ? null : error} onRetry={() => void reload()} what="the platform">
        {platform ? (
          <PlatformForm
            mode="edit"
            platform={platform}
            cancelTo={detail}
            onSaved={(saved, changed) => {
              const state: DetailNotice = { notice: `Saved: ${listOf(changed.map(propertyNoun))} changed.` };
              navigate(`/admin/platforms/${encodeURIComponent(saved.platformKey)}`, { state });
            }}
          />
        ) : null}
      </LoadState>
    </>
  );
}

/** "a", "a and b", "a, b and c". */
function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
