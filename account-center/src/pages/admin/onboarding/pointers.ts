// The gateway's errors beside their inputs: a person's name for each pointer below /body/, and
// the order the form shows them in. Pure.
import type { IntlShape } from 'react-intl';

/** A person's name for the input behind a pointer below /body/ (for the error summary). */
export function pointerLabel(intl: IntlShape, pointer: string): string {
  const translation = /^translations\/([^/]+)(?:\/(.+))?$/.exec(pointer);
  if (translation) {
    const [, language = '', part] = translation;
    const option = part ? /^options\/(.+)$/.exec(part) : null;
    if (!part) return intl.formatMessage({ id: 'schema.pointer.translation' }, { language });
    return intl.formatMessage({ id: option ? 'schema.pointer.translationOption' : 'schema.pointer.translationPart' }, { language, part: option ? option[1]! : part });
  }
  const option = /^options\/(\d+)(?:\/(value|label))?$/.exec(pointer);
  if (option) return intl.formatMessage({ id: 'schema.pointer.option' }, { number: Number(option[1]) + 1, part: option[2] ?? 'whole' });
  return POINTER_NAMES.has(pointer) ? intl.formatMessage({ id: `schema.pointer.${pointer}` }) : pointer;
}

/** The pointers with a name of their own (`schema.pointer.<pointer>`). */
const POINTER_NAMES = new Set([
  'fieldKey', 'label', 'fieldType', 'source', 'profileField', 'sharing', 'required', 'sortOrder', 'options', 'validation',
  'validation/minLength', 'validation/maxLength', 'validation/min', 'validation/max', 'uiConfig', 'uiConfig/width', 'uiConfig/helpText', 'placeholder', 'description',
]);

/** The order the form shows its inputs in, so the first error is the first on screen. */
export function pointerRank(pointer: string): number {
  const order = ['fieldKey', 'label', 'fieldType', 'required', 'sortOrder', 'source', 'profileField', 'sharing', 'options', 'validation', 'uiConfig', 'placeholder', 'description'];
  const head = pointer.split('/')[0] ?? pointer;
  const rank = order.indexOf(head);
  const option = /^options\/(\d+)(?:\/(value|label))?$/.exec(pointer);
  const sub = option ? 1 + Number(option[1]) * 3 + (option[2] === 'label' ? 2 : option[2] === 'value' ? 1 : 0) : 0;
  return (rank === -1 ? order.length : rank) * 10_000 + sub;
}
