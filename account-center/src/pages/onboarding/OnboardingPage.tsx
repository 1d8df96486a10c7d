import { PageTitle } from '../../components/PageTitle.tsx';

// Placeholder until this page is built.
export function OnboardingPage() {
  return <PageTitle>OnboardingPage</PageTitle>;
}
