import { useId, useState } from 'react';
import { useIntl } from '../i18n/useIntl.ts';

/**
 * When a requirement change is enforced (issue 36): immediately, as always, or from a date;
 * until then people who met the platform's requirements sign in as before (GRACE). Reports the
 * date as an ISO date-time (the gateway refuses one that is not in the future), or null.
 */
export function EnforcementChoice({ onChange }: { onChange: (enforceAfter: string | null) => void }) {
  const intl = useIntl();
  const t = (id: string) => intl.formatMessage({ id: `common.enforcement.${id}` });
  const id = useId();
  const [later, setLater] = useState(false);
  const [local, setLocal] = useState('');
  const report = (isLater: boolean, value: string) => {
    const date = isLater && value ? new Date(value) : null;
    onChange(date && !Number.isNaN(date.getTime()) ? date.toISOString() : null);
  };
  return (
    <fieldset className="field">
      <legend>{t('legend')}</legend>
      <label className="choice">
        <input type="radio" name={`${id}-enforcement`} checked={!later} onChange={() => { setLater(false); report(false, local); }} />
        <span>{t('immediately')}</span>
      </label>
      <label className="choice">
        <input type="radio" name={`${id}-enforcement`} checked={later} onChange={() => { setLater(true); report(true, local); }} />
        <span>{t('later')}</span>
      </label>
      {later ? (
        <div className="field">
          <label htmlFor={`${id}-date`}>{t('date')}</label>
          <input id={`${id}-date`} type="datetime-local" value={local} required onChange={(event) => { setLocal(event.target.value); report(true, event.target.value); }} />
        </div>
      ) : null}
    </fieldset>
  );
}
