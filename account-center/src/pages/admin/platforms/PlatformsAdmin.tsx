import { Fragment, type ReactNode } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { NotFoundPage } from '../../NotFoundPage.tsx';
import { PlatformListPage } from './PlatformListPage.tsx';
import { PlatformCreatePage } from './PlatformCreatePage.tsx';
import { PlatformDetailPage } from './PlatformDetailPage.tsx';
import { PlatformEditPage } from './PlatformEditPage.tsx';
import { PlatformBrandingPage } from '../../../branding/PlatformBrandingPage.tsx';
import './platforms.css';

/**
 * The platform registry's pages, mounted at /admin/platforms/* behind platforms:admin:
 * the list (search, status filter, paging), registering, a platform's page, and editing.
 */
export function PlatformsAdmin() {
  return (
    <Routes>
      <Route index element={<PlatformListPage />} />
      <Route path="new" element={<PlatformCreatePage />} />
      <Route path=":platformKey" element={<Keyed><PlatformDetailPage /></Keyed>} />
      <Route path=":platformKey/edit" element={<Keyed><PlatformEditPage /></Keyed>} />
      <Route path=":platformKey/branding" element={<Keyed><PlatformBrandingPage /></Keyed>} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

/** A page per platform: going from one platform to another starts the page afresh. */
function Keyed({ children }: { children: ReactNode }) {
  const { platformKey = '' } = useParams();
  return <Fragment key={platformKey}>{children}</Fragment>;
}
