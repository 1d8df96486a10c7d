import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';

export function NotFoundPage() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>There is no page at this address. <Link to="/">Go to the account center's home</Link>.</p>
    </>
  );
}
