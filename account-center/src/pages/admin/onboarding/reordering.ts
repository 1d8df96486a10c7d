// Moving a field up or down the form: the fewest PATCHes of sortOrder that do it. Pure.
import { SORT_ORDER_LIMIT, type Definition } from './model.ts';

export interface SortChange {
  fieldKey: string;
  sortOrder: number;
}

/**
 * The PATCHes of sortOrder that move the active field at `index` one place up (-1) or down
 * (+1). One PATCH when a whole number fits strictly between the new neighbours (the gateway
 * breaks ties by key, so a tie is never relied on); otherwise the active fields are numbered
 * 10, 20, 30… in the new order, one PATCH per field whose number changes. Every PATCH raises
 * the requirement version by one.
 */
export function movePlan(active: readonly Definition[], index: number, direction: -1 | 1): SortChange[] {
  const target = index + direction;
  const moving = active[index];
  if (!moving || target < 0 || target >= active.length) return [];
  const order = active.filter((_, position) => position !== index);
  order.splice(target, 0, moving);
  const before = order[target - 1];
  const after = order[target + 1];
  const low = before ? before.sortOrder : -SORT_ORDER_LIMIT - 1;
  const high = after ? after.sortOrder : SORT_ORDER_LIMIT + 1;
  if (high - low >= 2) {
    let value: number;
    if (!before) value = Math.max(high - 10, low + 1);
    else if (!after) value = Math.min(low + 10, high - 1);
    else value = Math.floor((low + high) / 2);
    return [{ fieldKey: moving.fieldKey, sortOrder: value }];
  }
  return order
    .map((field, position) => ({ fieldKey: field.fieldKey, sortOrder: (position + 1) * 10, current: field.sortOrder }))
    .filter((change) => change.sortOrder !== change.current)
    .map(({ fieldKey, sortOrder }) => ({ fieldKey, sortOrder }));
}
