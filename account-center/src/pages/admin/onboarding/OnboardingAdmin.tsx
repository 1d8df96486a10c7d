import type { ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { useIntl } from 'react-intl';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { FieldEditorPage } from './FieldEditor.tsx';
import { ADMIN_BASE } from './paths.ts';
import { PlatformPicker } from './PlatformPicker.tsx';
import { SchemaPage } from './SchemaPage.tsx';
import './onboardingAdmin.css';

/**
 * The onboarding schema editor, mounted at /admin/onboarding/* (readable with
 * onboarding:schema:read; changes need onboarding:schema:write or platforms:admin):
 *   /admin/onboarding                            choose a platform
 *   /admin/onboarding/{platformKey}              its form: fields in order, move, archive, preview
 *   /admin/onboarding/{platformKey}/new          add a field
 *   /admin/onboarding/{platformKey}/fields/{key} edit (or view) a field
 */
export function OnboardingAdmin() {
  const intl = useIntl();
  return (
    <Routes>
      <Route index element={<PlatformPicker />} />
      <Route path=":platformKey" element={<WithPlatform render={(platformKey) => <SchemaPage key={platformKey} platformKey={platformKey} />} />} />
      <Route path=":platformKey/new" element={<WithPlatform render={(platformKey) => <FieldEditorPage key={`${platformKey}/new`} platformKey={platformKey} fieldKey={null} />} />} />
      <Route path=":platformKey/fields/:fieldKey" element={<WithPlatform render={(platformKey, fieldKey) => <FieldEditorPage key={`${platformKey}/${fieldKey}`} platformKey={platformKey} fieldKey={fieldKey ?? null} />} />} />
      <Route path="*" element={<PageTitle lead={intl.formatMessage({ id: 'schema.notFound.lead' })}>{intl.formatMessage({ id: 'schema.notFound.title' })}</PageTitle>} />
    </Routes>
  );
}

/** Platform keys are upper case (the contract's PlatformKey): a typed lower-case address is corrected. */
function WithPlatform({ render }: { render: (platformKey: string, fieldKey: string | undefined) => ReactNode }) {
  const { platformKey = '', fieldKey } = useParams();
  const { pathname } = useLocation();
  const upper = platformKey.toUpperCase();
  if (upper !== platformKey) {
    const rest = pathname.slice(`${ADMIN_BASE}/`.length + encodeURIComponent(platformKey).length);
    return <Navigate to={`${ADMIN_BASE}/${encodeURIComponent(upper)}${rest}`} replace />;
  }
  return <>{render(platformKey, fieldKey)}</>;
}
