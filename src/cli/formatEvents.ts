import type { SecurityEventDeliveryList } from '../services/events/record.ts';

// Text output of `gateway events list` (`--json` prints the API representation instead).

export function formatSecurityEventDeliveries(list: SecurityEventDeliveryList): string {
  if (list.items.length === 0) return 'No security events recorded for this platform.\n';
  const lines = list.items.map((item) => {
    const when = item.deliveredAt ?? item.failedAt ?? item.occurredAt;
    const error = item.errorCode || item.lastError ? `  ${[item.errorCode, item.lastError].filter(Boolean).join(': ')}` : '';
    return `${item.jti}  ${item.status.padEnd(9)} ${item.mode.padEnd(4)} attempts=${item.attempts}  ${when}  ${shortType(item.eventType)}  user=${item.userId}${error}`;
  });
  return `${lines.join('\n')}\n`;
}

const shortType = (type: string) => type.slice(type.lastIndexOf(':') + 1);
