import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { PageTitle } from '../../components/PageTitle.tsx';
import { AvatarSection, type UploadFetch } from './AvatarSection.tsx';
import { DeleteAccountSection } from './DeleteAccountSection.tsx';
import { MethodsSection } from './MethodsSection.tsx';
import { PasswordSection } from './PasswordSection.tsx';
import { PlatformsSection } from './PlatformsSection.tsx';
import { ProfileDetails } from './ProfileDetails.tsx';
import type { Profile } from './profileModel.ts';
import { SummarySlotProvider } from './summarySlot.tsx';
import './profile.css';

/** The router state /signed-out receives after the account was deleted. */
export interface SignedOutState {
  accountDeleted: true;
}

/** The page's sections in order; their headings are `profile.section.<id>`. */
const SECTIONS = [
  { id: 'profile-picture' },
  { id: 'profile-details' },
  { id: 'profile-methods' },
  { id: 'profile-password' },
  { id: 'profile-platforms' },
  { id: 'profile-delete' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

function Section({ id, danger, children }: { id: SectionId; danger?: boolean; children: ReactNode }) {
  const title = useIntl().formatMessage({ id: `profile.section.${id}` });
  return (
    <section id={id} className={`panel profile-section${danger ? ' profile-danger' : ''}`} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * /profile: the person's canonical profile and picture, how they sign in, their password, the
 * platforms they belong to, and deleting the account.
 */
export function ProfilePage({ uploadFetch }: { uploadFetch?: UploadFetch } = {}) {
  const intl = useIntl();
  const { api, forget } = useSession();
  const navigate = useNavigate();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setProfile(await call(api.GET('/v1/profile/me')));
    } catch (failure) {
      setError(failure instanceof ApiProblem ? failure : new ApiProblem(0, null));
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  // After deletion the session is forgotten only once this page is gone: forgetting it while the
  // page (behind RequireSession) is still shown would send the browser to sign in instead.
  const deleted = useRef(false);
  const forgetRef = useRef(forget);
  forgetRef.current = forget;
  useEffect(() => () => {
    if (deleted.current) forgetRef.current();
  }, []);

  const onDeleted = () => {
    deleted.current = true;
    const state: SignedOutState = { accountDeleted: true };
    navigate('/signed-out', { replace: true, state });
  };

  return (
    <SummarySlotProvider>
      <PageTitle lead={intl.formatMessage({ id: 'profile.lead' })}>{intl.formatMessage({ id: 'profile.title' })}</PageTitle>
      <nav className="profile-toc" aria-label={intl.formatMessage({ id: 'profile.toc' })}>
        <ul>
          {SECTIONS.map((section) => <li key={section.id}><a href={`#${section.id}`}>{intl.formatMessage({ id: `profile.section.${section.id}` })}</a></li>)}
        </ul>
      </nav>
      <LoadState loading={profile === null && error === null} error={error} onRetry={() => void load()} what={intl.formatMessage({ id: 'profile.what' })}>
        {profile ? (
          <>
            <Section id="profile-picture">
              <AvatarSection profile={profile} onChanged={load} uploadFetch={uploadFetch} />
            </Section>
            <Section id="profile-details">
              <ProfileDetails profile={profile} onSaved={setProfile} />
            </Section>
          </>
        ) : null}
      </LoadState>
      <Section id="profile-methods">
        <p className="profile-note">{intl.formatMessage({ id: 'profile.methods.note' })}</p>
        <MethodsSection />
      </Section>
      <Section id="profile-password">
        <PasswordSection />
      </Section>
      <Section id="profile-platforms">
        <p className="profile-note">{intl.formatMessage({ id: 'profile.platforms.note' })}</p>
        <PlatformsSection />
      </Section>
      <Section id="profile-delete" danger>
        <DeleteAccountSection onDeleted={onDeleted} />
      </Section>
    </SummarySlotProvider>
  );
}
