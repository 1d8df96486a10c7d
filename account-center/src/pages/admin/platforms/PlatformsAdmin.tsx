import { PageTitle } from '../../../components/PageTitle.tsx';

// Placeholder until this page is built.
export function PlatformsAdmin() {
  return <PageTitle>PlatformsAdmin</PageTitle>;
}
