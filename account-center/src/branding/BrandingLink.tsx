import { Link } from 'react-router';
import { FormattedMessage } from 'react-intl';

/** The platform page's way to its branding editor (/admin/platforms/:platformKey/branding). */
export function BrandingLink({ platformKey }: { platformKey: string }) {
  return (
    <Link className="button button-secondary" to={`/admin/platforms/${encodeURIComponent(platformKey)}/branding`}>
      <FormattedMessage id="branding.link" />
    </Link>
  );
}
