import { useId } from 'react';
import type { Schemas } from '../../api.ts';
import { deviceName } from './device.ts';
import { useIntl } from '../../i18n/useIntl.ts';

const DATE_TIME = { dateStyle: 'medium', timeStyle: 'short' } as const;

/**
 * One session: its device as a heading (with when it started, so two alike devices have
 * distinct names for assistive technology), when it started and was last used, the platforms it
 * reached and the coarse network, and a button to end it.
 */
export function SessionCard({ session, platformNames, busy, onEnd }: {
  session: Schemas['Session'];
  platformNames: ReadonlyMap<string, string>;
  busy: boolean;
  onEnd: (name: string) => void;
}) {
  const headingId = useId();
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string>) => intl.formatMessage({ id: `sessions.card.${id}` }, values);
  // Dates in the person's language and formats (react-intl's locale: the profile's tag, de-AT keeps Austrian formats).
  const when = (iso: string) => <time dateTime={iso}>{intl.formatDate(new Date(iso), DATE_TIME)}</time>;
  const device = deviceName(intl, session.userAgent);
  const started = intl.formatDate(new Date(session.createdAt), DATE_TIME);
  const name = say('name', { device, started });
  return (
    <li className={`panel sessions-card${session.current ? ' sessions-current' : ''}`} aria-labelledby={headingId}>
      <h2 id={headingId} className="sessions-device">
        {device}
        <span className="visually-hidden">{say('signedInHidden', { started })}</span>
        {session.current ? <span className="badge badge-success sessions-this">{say('thisDevice')}</span> : null}
      </h2>
      <dl className="sessions-facts">
        <div><dt>{say('signedIn')}</dt><dd>{when(session.createdAt)}</dd></div>
        <div><dt>{say('lastActive')}</dt><dd>{when(session.lastUsedAt)}</dd></div>
        <div>
          <dt>{say('platforms')}</dt>
          <dd>
            {session.platforms.length > 0
              ? intl.formatList(session.platforms.map((key) => platformNames.get(key) ?? key), { type: 'unit' })
              : say('noPlatforms')}
          </dd>
        </div>
        <div><dt>{say('network')}</dt><dd>{session.ipPrefix ?? say('unknownNetwork')}</dd></div>
      </dl>
      <div className="sessions-actions">
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => onEnd(name)}
          aria-label={session.current ? say('signOutThisLabel', { device }) : say('signOutLabel', { name })}>
          {session.current ? say('signOutThis') : say('signOut')}
        </button>
      </div>
    </li>
  );
}
