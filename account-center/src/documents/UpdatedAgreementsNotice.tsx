import { useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { call } from '../api.ts';
import { useSession } from '../session.tsx';

/**
 * "Updated": once per visit of the account center, a signed-in person hears that a document of a
 * platform they use has a newer version than the one they accepted (a non-material change,
 * which blocks nothing), with a link to the Agreements page (issue 25). Silent on any failure,
 * and on the pages where the documents are already in front of them.
 */
export function UpdatedAgreementsNotice() {
  const intl = useIntl();
  const { api, me } = useSession();
  const { pathname } = useLocation();
  const [titles, setTitles] = useState<string[]>([]);
  const signedIn = Boolean(me?.user);

  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    call(api.GET('/v1/agreements'))
      .then((agreements) => {
        if (!live) return;
        setTitles(agreements.items.flatMap((platform) => platform.documents
          .filter((document) => document.state === 'updated')
          .map((document) => `${document.current.texts[document.current.defaultLanguage]?.title ?? document.documentKey} (${platform.displayName})`)));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, signedIn]);

  if (titles.length === 0 || pathname.startsWith('/agreements') || pathname.startsWith('/onboarding')) return null;
  return (
    <div className="notice notice-info agreements-updated" role="status">
      <p>
        {intl.formatMessage({ id: 'agreements.updated.notice' }, { titles: intl.formatList(titles, { type: 'conjunction' }) })}{' '}
        <Link to="/agreements">{intl.formatMessage({ id: 'agreements.updated.link' })}</Link>
      </p>
    </div>
  );
}
