import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { Layout } from './layout/Layout.tsx';
import { RequirePermission, RequireSession } from './layout/guards.tsx';
import { useSession } from './session.tsx';
import { HomePage } from './pages/HomePage.tsx';
import { SignedOutPage } from './pages/SignedOutPage.tsx';
import { AccountDeletedPage } from './pages/deletion/AccountDeletedPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { OnboardingPage } from './pages/onboarding/OnboardingPage.tsx';
import { BrandedOnboarding } from './branding/BrandedOnboarding.tsx';
import { ProfilePage } from './pages/profile/ProfilePage.tsx';
import { SessionsPage } from './pages/sessions/SessionsPage.tsx';
import { DataRightsPage } from './pages/dataRights/DataRightsPage.tsx';
import { PlatformsAdmin } from './pages/admin/platforms/PlatformsAdmin.tsx';
import { OnboardingAdmin } from './pages/admin/onboarding/OnboardingAdmin.tsx';
import { AgreementsPage } from './pages/agreements/AgreementsPage.tsx';
import { DocumentsAdmin } from './pages/admin/documents/DocumentsAdmin.tsx';
import { SupportAccessPage } from './pages/supportAccess/SupportAccessPage.tsx';
import { SupportRequestPage } from './pages/supportAccess/SupportRequestPage.tsx';

/** The account center's routes (spec: /onboarding/{platformKey}?resume=…, /onboarding, /admin/*). */
export function App() {
  return (
    <BrowserRouter>
      <Routes>
        <Route element={<Layout />}>
          <Route index element={<HomePage />} />
          <Route path="onboarding" element={<DefaultOnboarding />} />
          {/* Every onboarding step of a platform sits in its branding's frame (issue 27). */}
          <Route path="onboarding/:platformKey" element={<RequireSession><BrandedOnboarding /></RequireSession>}>
            <Route index element={<OnboardingPage />} />
          </Route>
          <Route path="profile" element={<RequireSession><ProfilePage /></RequireSession>} />
          <Route path="sessions" element={<RequireSession><SessionsPage /></RequireSession>} />
          <Route path="agreements" element={<RequireSession><AgreementsPage /></RequireSession>} />
          <Route path="data" element={<RequireSession><DataRightsPage /></RequireSession>} />
          <Route path="support-access" element={<RequireSession><SupportAccessPage /></RequireSession>} />
          <Route path="admin/support" element={<RequirePermission permission="support:access"><SupportRequestPage /></RequirePermission>} />
          <Route path="admin/platforms/*" element={<RequirePermission permission="platforms:admin"><PlatformsAdmin /></RequirePermission>} />
          <Route path="admin/onboarding/*" element={<RequirePermission permission="onboarding:schema:read"><OnboardingAdmin /></RequirePermission>} />
          <Route path="admin/documents/*" element={<RequirePermission permission="onboarding:schema:read"><DocumentsAdmin /></RequirePermission>} />
          <Route path="signed-out" element={<SignedOutPage />} />
          <Route path="account-deleted" element={<AccountDeletedPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}

/** /onboarding: the configured platform's onboarding (AUTH_PLATFORM_KEY), keeping the query. */
function DefaultOnboarding() {
  const { config } = useSession();
  return <Navigate to={`/onboarding/${encodeURIComponent(config.authPlatformKey)}${window.location.search}`} replace />;
}
