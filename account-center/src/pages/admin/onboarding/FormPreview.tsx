import { useState } from 'react';
import { useIntl } from 'react-intl';
import { emptyValue, FieldInput, type FieldDefinition, type FieldValue } from '../../../fields/FieldInput.tsx';

/**
 * Fields as the user will see them, with the user's own inputs (FieldInput), to try out:
 * what is typed here is kept in this page only and never sent. A field whose type changes
 * starts empty again.
 */
export function FormPreview({ fields, emptyText }: {
  fields: readonly FieldDefinition[];
  emptyText?: string;
}) {
  const [values, setValues] = useState<Record<string, { type: FieldDefinition['fieldType']; value: FieldValue }>>({});
  const intl = useIntl();
  if (fields.length === 0) return <p className="oa-muted">{emptyText ?? intl.formatMessage({ id: 'schema.preview.empty' })}</p>;
  return (
    <div className="form-grid oa-preview-form">
      {fields.map((field) => {
        const stored = values[field.fieldKey];
        const value = stored && stored.type === field.fieldType ? stored.value : emptyValue(field.fieldType);
        return (
          <FieldInput
            key={`${field.fieldKey}:${field.fieldType}`}
            definition={field}
            value={value}
            onChange={(next) => setValues((current) => ({ ...current, [field.fieldKey]: { type: field.fieldType, value: next } }))}
          />
        );
      })}
    </div>
  );
}
