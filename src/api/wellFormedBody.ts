import type { NextFunction, Request, Response } from 'express';
import { validationError, type FieldError } from '../errors/catalogue.ts';
import { sendProblem } from '../errors/problem.ts';

/**
 * JSON bodies hold only well-formed Unicode. RFC 8259 §8.2 lets a JSON text escape a lone UTF-16
 * surrogate (`"\ud800"`) and leaves its meaning to the reader; JSON.parse keeps it, but it is no
 * UTF-8 text, and PostgreSQL refused such a value with an error (a 500). One check here, right
 * after the body parser, covers every route: 400 VALIDATION_FAILED pointing at the first string
 * (value or key) that is not well formed. Iterative, so a deeply nested body cannot overflow the
 * stack; linear in the body (at most 64 KiB).
 */
export function refuseIllFormedStrings(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object') {
    if (typeof body === 'string' && req.is(['application/json', 'application/*+json']) && !body.isWellFormed()) {
      return sendProblem(req, res, validationError([illFormed('/body')]));
    }
    return next();
  }
  const pending: [unknown, string][] = [[body, '/body']];
  while (pending.length > 0) {
    const [value, pointer] = pending.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return sendProblem(req, res, validationError([illFormed(pointer)]));
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) pending.push([value[index], `${pointer}/${index}`]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value).reverse()) {
        const at = `${pointer}/${escapePointer(key)}`;
        if (!key.isWellFormed()) return sendProblem(req, res, validationError([illFormed(at)]));
        pending.push([inner, at]);
      }
    }
  }
  next();
}

function illFormed(pointer: string): FieldError {
  return { pointer, reason: 'ILL_FORMED_UNICODE', message: 'is not well-formed Unicode text (it holds a lone UTF-16 surrogate)' };
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
