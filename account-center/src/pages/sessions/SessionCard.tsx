import { useId } from 'react';
import type { Schemas } from '../../api.ts';
import { deviceName } from './device.ts';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const when = (iso: string) => <time dateTime={iso}>{DATE_TIME.format(new Date(iso))}</time>;

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
  const device = deviceName(session.userAgent);
  const started = DATE_TIME.format(new Date(session.createdAt));
  const name = `${device}, signed in ${started}`;
  return (
    <li className={`panel sessions-card${session.current ? ' sessions-current' : ''}`} aria-labelledby={headingId}>
      <h2 id={headingId} className="sessions-device">
        {device}
        <span className="visually-hidden">{`, signed in ${started}`}</span>
        {session.current ? <span className="badge badge-success sessions-this">This device</span> : null}
      </h2>
      <dl className="sessions-facts">
        <div><dt>Signed in</dt><dd>{when(session.createdAt)}</dd></div>
        <div><dt>Last active</dt><dd>{when(session.lastUsedAt)}</dd></div>
        <div>
          <dt>Platforms</dt>
          <dd>
            {session.platforms.length > 0
              ? session.platforms.map((key) => platformNames.get(key) ?? key).join(', ')
              : 'None yet'}
          </dd>
        </div>
        <div><dt>Network</dt><dd>{session.ipPrefix ?? 'Unknown'}</dd></div>
      </dl>
      <div className="sessions-actions">
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => onEnd(name)}
          aria-label={session.current ? `Sign out on this device (${device})` : `Sign out ${name}`}>
          {session.current ? 'Sign out on this device' : 'Sign out'}
        </button>
      </div>
    </li>
  );
}
