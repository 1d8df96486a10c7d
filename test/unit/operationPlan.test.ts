import { describe, expect, it } from 'vitest';
import { planOperation } from '../../src/api/requestParsing.ts';

type Operation = Parameters<typeof planOperation>[0];
const operation = (fields: Partial<Operation>): Operation => ({ operationId: 'op', method: 'get', path: '/v1/things', responses: {}, ...fields }) as Operation;

describe('planOperation (what the request pipeline works out once per operation)', () => {
  it('finds the path parameters by segment, the known and array query parameters, and each security scheme once', () => {
    const plan = planOperation(
      operation({
        path: '/v1/platforms/{platformKey}/fields/{fieldKey}',
        parameters: [
          { in: 'path', name: 'platformKey', required: true, schema: { type: 'string' } },
          { in: 'path', name: 'fieldKey', required: true, schema: { type: 'string' } },
          { in: 'query', name: 'limit', schema: { type: 'integer' } },
          { in: 'query', name: 'status', schema: { type: 'array', items: { type: 'string' } } },
        ],
        security: [{ gatewayCookieAuth: [] }, { bearerAuth: [] }, { gatewayCookieAuth: [], bearerAuth: [] }],
      }),
    );
    expect(plan.pathParameters).toEqual([
      { name: 'platformKey', index: 3 },
      { name: 'fieldKey', index: 5 },
    ]);
    expect([...plan.knownQuery]).toEqual(['limit', 'status']);
    expect(plan.arrayQuery).toEqual(['status']);
    expect(plan.requirements).toEqual([['gatewayCookieAuth'], ['bearerAuth'], ['gatewayCookieAuth', 'bearerAuth']]);
    expect(plan.schemes).toEqual(['gatewayCookieAuth', 'bearerAuth']);
  });

  it.each([
    ['a header parameter', { parameters: [{ in: 'header', name: 'X-Thing', schema: { type: 'string' } }] }],
    ['a cookie parameter', { parameters: [{ in: 'cookie', name: 'thing', schema: { type: 'string' } }] }],
    ['a query parameter given as JSON', { parameters: [{ in: 'query', name: 'filter', content: { 'application/json': { schema: { type: 'object' } } } }] }],
    ['a query parameter not exploded', { parameters: [{ in: 'query', name: 'ids', explode: false, schema: { type: 'array', items: { type: 'string' } } }] }],
    ['a path parameter inside a segment', { path: '/v1/files/{name}.json', parameters: [{ in: 'path', name: 'name', required: true, schema: { type: 'string' } }] }],
  ])('refuses, at boot, a contract with %s (the pipeline would not parse it)', (_what, fields) => {
    expect(() => planOperation(operation(fields as Partial<Operation>))).toThrow(/not supported|whole segment/);
  });
});
