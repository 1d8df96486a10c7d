import { useIntl } from 'react-intl';
import { Field } from '../../../components/Field.tsx';
import { EVENT_DELIVERIES, type ErrorKey, type EventDelivery, type PlatformFormValues } from './platformForm.ts';

/**
 * The platform form's Security Event Token settings (issue 26): how the platform receives events
 * (none, push, poll) and where they are pushed. The registry checks the URL like the
 * back-channel logout URL; its errors come back beside these inputs.
 */
export function EventDeliveryFields({ values, errorOf, remember, onChange }: {
  values: Pick<PlatformFormValues, 'eventDelivery' | 'eventReceiverUrl'>;
  errorOf: (key: ErrorKey) => string | null;
  remember: (key: ErrorKey, id: string) => string;
  onChange: (name: 'eventDelivery' | 'eventReceiverUrl', value: string) => void;
}) {
  const intl = useIntl();
  return (
    <>
      <Field label={intl.formatMessage({ id: 'events.admin.delivery.label' })} help={intl.formatMessage({ id: 'events.admin.delivery.help' })} error={errorOf('eventDelivery')}>
        {({ id, describedBy, invalid }) => (
          <select
            id={remember('eventDelivery', id)}
            name="eventDelivery"
            value={values.eventDelivery}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            onChange={(event) => onChange('eventDelivery', event.target.value as EventDelivery)}
          >
            {EVENT_DELIVERIES.map((delivery) => (
              <option key={delivery} value={delivery}>
                {intl.formatMessage({ id: `events.admin.delivery.${delivery}` })}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={intl.formatMessage({ id: 'events.admin.receiverUrl.label' })} help={intl.formatMessage({ id: 'events.admin.receiverUrl.help' })} error={errorOf('eventReceiverUrl')}>
        {({ id, describedBy, invalid }) => (
          <input
            id={remember('eventReceiverUrl', id)}
            name="eventReceiverUrl"
            type="url"
            inputMode="url"
            value={values.eventReceiverUrl}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => onChange('eventReceiverUrl', event.target.value)}
          />
        )}
      </Field>
    </>
  );
}
