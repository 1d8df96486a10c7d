import { PageTitle } from '../../../components/PageTitle.tsx';

// Placeholder until this page is built.
export function OnboardingAdmin() {
  return <PageTitle>OnboardingAdmin</PageTitle>;
}
