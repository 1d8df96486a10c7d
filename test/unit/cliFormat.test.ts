import { describe, it, expect } from 'vitest';
import { formatAuditList } from '../../src/cli/format.ts';
import type { AuditEventList } from '../../src/services/audit/audit.ts';

type AuditEvent = AuditEventList['items'][number];

const event = (actor: AuditEvent['actor'], i: number): AuditEvent => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  occurredAt: '2026-11-26T12:00:00.000Z',
  action: 'platform.create',
  platformKey: 'DEMO_PLATFORM',
  fieldKey: null,
  sessionId: null,
  actor,
  changedFields: ['displayName'],
  requestId: null,
});

describe('audit list (CLI text)', () => {
  it('names each actor: the dev stack\'s seeding as devstack, not as an unknown user', () => {
    const text = formatAuditList({
      items: [
        event({ type: 'devstack', userId: null, sub: null }, 1),
        event({ type: 'cli', userId: null, sub: null }, 2),
        event({ type: 'user', userId: null, sub: 'sub-1' }, 3),
        event({ type: 'user', userId: null, sub: null }, 4),
      ],
      nextCursor: null,
    });
    const actors = text.split('\n').slice(1, 5).map((line) => line.split(/\s{2,}/)[4]);
    expect(actors).toEqual(['devstack', 'cli', 'user sub-1', 'user ?']);
  });
});
