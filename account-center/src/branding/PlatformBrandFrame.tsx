import { createContext, useContext, type CSSProperties, type ReactNode } from 'react';
import { useIntl } from 'react-intl';
import type { BrandLook } from './platformBrand.ts';
import './branding.css';

export interface PlatformBrandFrameProps {
  /** The platform's look; null while unknown or for an unbranded platform: the account center's own. */
  look: BrandLook | null;
  children: ReactNode;
}

const BrandContext = createContext<BrandLook | null>(null);

/**
 * The look of the platform whose step this is (inside PlatformBrandFrame), e.g. for a step's
 * heading to name the platform as the frame does (its name in the page's language); null
 * outside a frame or for an unbranded platform.
 */
export function usePlatformBrand(): BrandLook | null {
  return useContext(BrandContext);
}

/**
 * The frame every step of a platform's central onboarding sits in (the details form, the
 * agreements step): the platform's logo and name above the step, and its colour on the step's
 * primary action, links and focus rings (the account center's --accent, redefined for this
 * subtree only). The account center's own header and pages keep their look. The admin's branding
 * editor previews a platform by rendering this same component.
 */
export function PlatformBrandFrame({ look, children }: PlatformBrandFrameProps) {
  const intl = useIntl();
  if (!look) return <div className="platform-frame"><BrandContext.Provider value={null}>{children}</BrandContext.Provider></div>;
  // A CSS custom property set through React's style (CSSOM): allowed under style-src 'self'.
  const accent = look.primaryColor ? ({ '--accent': look.primaryColor } as CSSProperties) : undefined;
  return (
    <div className="platform-frame platform-frame-branded" style={accent} data-platform-color={look.primaryColor ?? undefined}>
      <div className="platform-brand">
        {look.logoUrl ? <img className="platform-brand-logo" src={look.logoUrl} alt="" /> : null}
        <p className="platform-brand-name">
          {intl.formatMessage({ id: 'branding.frame.for' }, { platform: <span className="platform-brand-platform">{look.name}</span> })}
        </p>
      </div>
      <BrandContext.Provider value={look}>{children}</BrandContext.Provider>
    </div>
  );
}
