import { PageTitle } from '../../components/PageTitle.tsx';

// Placeholder until this page is built.
export function ProfilePage() {
  return <PageTitle>ProfilePage</PageTitle>;
}
