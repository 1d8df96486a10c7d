import { Field } from '../../../components/Field.tsx';
import { EventDeliveryFields } from './EventDeliveryFields.tsx';
import { MAX_RETURN_URLS } from './model.ts';
import { returnUrlKey } from './platformForm.ts';
import { useT, type SectionProps } from './PlatformFormSections.tsx';

/** The return URL list's actions, which change the form's rows and move the focus (PlatformForm.tsx). */
export interface ReturnUrlActions {
  /** The id of the Add button (the focus goes there when the last row is removed). */
  addButtonId: string;
  addRow: () => void;
  removeRow: (index: number) => void;
  editRow: (rowId: string, value: string) => void;
}

/**
 * The platform form's addresses: where logins come back (callback, return URLs), where
 * back-channel logouts and security events go.
 */
export function AddressesSection({ formId, values, set, clearError, errorOf, remember, addButtonId, addRow, removeRow, editRow }: SectionProps & ReturnUrlActions) {
  const t = useT();
  return (
    <section className="panel" aria-labelledby={`${formId}-addresses`}>
      <h2 id={`${formId}-addresses`}>{t('platforms.form.addresses')}</h2>
      <div className="form-grid">
        <Field
          label={t('platforms.field.callbackUrl')}
          help={t('platforms.form.callbackUrlHelp')}
          error={errorOf('callbackUrl')}
        >
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('callbackUrl', id)}
              name="callbackUrl"
              type="url"
              inputMode="url"
              value={values.callbackUrl}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => {
                set('callbackUrl', event.target.value);
                clearError('callbackUrl');
              }}
            />
          )}
        </Field>
        <Field
          label={t('platforms.field.backchannelLogoutUrl')}
          help={t('platforms.form.backchannelLogoutUrlHelp')}
          error={errorOf('backchannelLogoutUrl')}
        >
          {({ id, describedBy, invalid }) => (
            <input
              id={remember('backchannelLogoutUrl', id)}
              name="backchannelLogoutUrl"
              type="url"
              inputMode="url"
              value={values.backchannelLogoutUrl}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => {
                set('backchannelLogoutUrl', event.target.value);
                clearError('backchannelLogoutUrl');
              }}
            />
          )}
        </Field>
        <EventDeliveryFields
          values={values}
          errorOf={errorOf}
          remember={remember}
          onChange={(name, value) => {
            set(name, value as never);
            clearError(name);
          }}
        />
        <Field
          kind="group"
          label={t('platforms.field.allowedReturnUrls')}
          description={t('platforms.form.returnUrlsHelp')}
          error={errorOf('allowedReturnUrls')}
        >
          {() => (
            <>
              {values.returnUrls.length === 0 ? <p className="platforms-muted">{t('platforms.form.noReturnUrl')}</p> : null}
              <ol className="platforms-url-list">
                {values.returnUrls.map((row, index) => (
                  <li key={row.id}>
                    <Field label={t('platforms.form.returnUrl', { number: index + 1 })} error={errorOf(returnUrlKey(row.id))}>
                      {({ id, describedBy, invalid }) => (
                        <div className="platforms-url-row">
                          <input
                            id={remember(returnUrlKey(row.id), id)}
                            type="url"
                            inputMode="url"
                            value={row.value}
                            aria-describedby={describedBy}
                            aria-invalid={invalid || undefined}
                            autoComplete="off"
                            spellCheck={false}
                            onChange={(event) => {
                              editRow(row.id, event.target.value);
                              clearError(returnUrlKey(row.id));
                            }}
                          />
                          <button type="button" className="button button-secondary" aria-label={t('platforms.form.removeReturnUrl', { number: index + 1 })} onClick={() => removeRow(index)}>
                            {t('platforms.form.remove')}
                          </button>
                        </div>
                      )}
                    </Field>
                  </li>
                ))}
              </ol>
              <button
                type="button"
                id={addButtonId}
                className="button button-secondary"
                onClick={() => {
                  addRow();
                  clearError('allowedReturnUrls');
                }}
                disabled={values.returnUrls.length >= MAX_RETURN_URLS}
              >
                {t('platforms.form.addReturnUrl')}
              </button>
            </>
          )}
        </Field>
      </div>
    </section>
  );
}
