import { ApiError } from '../errors/catalogue.ts';
import type { OperationHandler, OperationId } from './types.ts';

const PENDING = Symbol('pending operation');

/**
 * A contract operation whose behaviour belongs to a later issue. It answers
 * 501 NOT_IMPLEMENTED (after authentication) and is listed in docs/development.md's
 * pending-operations section; a test keeps that list and this marker in step.
 */
export function pending<K extends OperationId>(operationId: K): OperationHandler<K> {
  const handler: OperationHandler<K> = async () => {
    throw new ApiError('NOT_IMPLEMENTED', `${operationId} is not implemented yet.`);
  };
  return Object.assign(handler, { [PENDING]: true });
}

export function isPending(handler: unknown): boolean {
  return typeof handler === 'function' && PENDING in handler;
}
