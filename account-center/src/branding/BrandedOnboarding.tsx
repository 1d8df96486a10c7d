import { useEffect, useState } from 'react';
import { Outlet, useParams } from 'react-router';
import { useIntl } from 'react-intl';
import { call } from '../api.ts';
import { gatewayBaseUrl } from '../config.ts';
import { useSession } from '../session.tsx';
import { PlatformBrandFrame } from './PlatformBrandFrame.tsx';
import { brandLook, type PlatformBranding } from './platformBrand.ts';

/**
 * The route element of /onboarding/:platformKey and every step below it: loads the platform's
 * branding and puts the step (the route's Outlet) inside its frame. Branding is decoration: while
 * it loads, or when it cannot be read, the step shows in the account center's own look.
 */
export function BrandedOnboarding() {
  const { platformKey = '' } = useParams();
  const { api, config } = useSession();
  const intl = useIntl();
  const [branding, setBranding] = useState<PlatformBranding | null>(null);

  useEffect(() => {
    let current = true;
    setBranding(null);
    call(api.GET('/v1/platforms/{platformKey}/branding', { params: { path: { platformKey } } }))
      .then((loaded) => current && setBranding(loaded))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [api, platformKey]);

  const look = branding ? brandLook(branding, intl.locale, new URL(gatewayBaseUrl(config), window.location.href).origin) : null;
  return (
    <PlatformBrandFrame look={look}>
      <Outlet />
    </PlatformBrandFrame>
  );
}
