import { useIntl } from 'react-intl';
import { Notice } from '../../../components/Notice.tsx';
import { FormPreview } from './FormPreview.tsx';
import { draftOf, profileProperty, propertyLabel, typeLabel, type Definition } from './model.ts';
import { previewDefinition, settingsOf } from './settings.ts';
import { pointerLabel } from './pointers.ts';
import { READ_ONLY_TEXT_ID } from './SchemaPage.tsx';

/** Read only: every setting of the field, and the preview. */
export function FieldDetails({ field }: { field: Definition }) {
  const bound = profileProperty(field.profileField);
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const none = <span className="oa-muted">{t('schema.details.none')}</span>;
  const settings = settingsOf(intl, draftOf(field)).settings;
  return (
    <div className="oa-editor">
      <div className="oa-editor-form">
        <Notice title={t('schema.readOnlyTitle')}>{t(READ_ONLY_TEXT_ID)}</Notice>
        {field.archived ? <Notice tone="warning" title={t('schema.editor.archivedTitle')}>{t('schema.editor.archivedNote')}</Notice> : null}
        <section className="panel" aria-labelledby="oa-details-title">
          <h2 id="oa-details-title">{t('platforms.detail.settings')}</h2>
          <dl className="oa-details">
            <div><dt>{t('schema.pointer.fieldKey')}</dt><dd className="oa-key">{field.fieldKey}</dd></div>
            <div><dt>{t('schema.pointer.label')}</dt><dd>{field.label}</dd></div>
            <div><dt>{t('schema.pointer.fieldType')}</dt><dd>{t('schema.details.type', { label: typeLabel(intl, field.fieldType), type: field.fieldType })}</dd></div>
            <div><dt>{t('schema.pointer.required')}</dt><dd>{t(field.required ? 'schema.details.yes' : 'schema.details.no')}</dd></div>
            <div><dt>{t('schema.pointer.sortOrder')}</dt><dd>{field.sortOrder}</dd></div>
            <div><dt>{t('schema.details.keptIn')}</dt><dd>{bound ? t('schema.details.inProfile', { label: propertyLabel(intl, bound.property), property: bound.property }) : t('schema.field.custom')}</dd></div>
            <div>
              <dt>{t('schema.pointer.options')}</dt>
              <dd>{field.options.length === 0 ? none : (
                <ol className="oa-plain-list">{field.options.map((option) => <li key={option.value}>{t('schema.details.option', { label: option.label, value: option.value })}</li>)}</ol>
              )}</dd>
            </div>
            <div>
              <dt>{t('schema.pointer.validation')}</dt>
              <dd>{Object.keys(field.validation).length === 0 ? none : intl.formatList(
                Object.entries(field.validation).map(([key, value]) => t('schema.details.limit', { name: pointerLabel(intl, `validation/${key}`), value: Number(value) })),
                { type: 'unit' },
              )}</dd>
            </div>
            <div><dt>{t('schema.pointer.uiConfig/width')}</dt><dd>{t(`schema.width.${field.uiConfig.width ?? 'default'}`)}</dd></div>
            <div><dt>{t('schema.pointer.uiConfig/helpText')}</dt><dd>{field.uiConfig.helpText || none}</dd></div>
            <div><dt>{t('schema.pointer.placeholder')}</dt><dd>{field.placeholder || none}</dd></div>
            <div><dt>{t('schema.pointer.description')}</dt><dd>{field.description || none}</dd></div>
          </dl>
        </section>
      </div>
      <aside className="oa-editor-preview" aria-labelledby="oa-details-preview">
        <div className="panel">
          <h2 id="oa-details-preview">{t('schema.editor.preview')}</h2>
          <FormPreview fields={[previewDefinition(intl, draftOf(field), settings)]} />
        </div>
      </aside>
    </div>
  );
}
