// `keys status|rotate-data`: which encryption keys still protect stored values, and re-sealing
// them under the active key (docs/operations.md, "Rotating keys").
import { ConfigError, loadKeyRingSpec } from '../config/index.ts';
import { parseKeyRing, type KeyRing } from '../security/crypto.ts';
import { rotateSealedData, sealedKeyStatus, type RotationResult, type SealedCount } from '../services/maintenance/keyRotation.ts';
import { integerOption, parse, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';

const KEYS_OPTIONS = { 'batch-size': { type: 'string' } } as const;

/**
 * `keys status|rotate-data`: the key ring comes from ENCRYPTION_KEYS as the service reads it,
 * checked before the database is opened (a bad ring is a configuration error, exit 78).
 */
export function parseKeysCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  if (action === undefined || action === '--help' || action === '-h') return null;
  if (action !== 'status' && action !== 'rotate-data') throw new UsageError(`unknown keys command "${action}" (status, rotate-data)`);
  const { values } = parse(args, KEYS_OPTIONS, 0);
  if (values.help) return null;
  const batchSize = values['batch-size'] === undefined ? undefined : integerOption('--batch-size', values['batch-size']);
  let keyRing: KeyRing;
  try {
    keyRing = parseKeyRing(loadKeyRingSpec(io.env));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`ENCRYPTION_KEYS is refused: ${(error as Error).message}`]);
  }
  if (action === 'status') {
    return async (db, _io, json) => {
      const counts = await sealedKeyStatus(db);
      io.stdout(json ? toJson({ activeKid: keyRing.activeKid, ring: keyRing.kids, sealed: counts }) : formatKeyStatus(keyRing, counts));
    };
  }
  return async (db, _io, json) => {
    const results = await rotateSealedData(db, keyRing, {
      ...(batchSize !== undefined ? { batchSize } : {}),
      onBatch: (progress) => io.stderr(`${progress.table}.${progress.column}: ${progress.resealed} re-sealed so far\n`),
    });
    io.stdout(json ? toJson({ activeKid: keyRing.activeKid, results }) : formatRotation(keyRing, results));
  };
}

function formatKeyStatus(keyRing: KeyRing, counts: readonly SealedCount[]): string {
  const lines = [`Active key: ${keyRing.activeKid}; ring: ${keyRing.kids.join(', ')}`];
  if (counts.length === 0) lines.push('No sealed values are stored.');
  for (const count of counts) {
    const note = count.kid === keyRing.activeKid ? '' : keyRing.kids.includes(count.kid) ? '  (run keys rotate-data)' : '  (key not in the ring: unreadable)';
    lines.push(`  ${count.table}.${count.column}  key ${count.kid}: ${count.rows} row(s)${note}`);
  }
  const retirable = keyRing.kids.filter((kid) => kid !== keyRing.activeKid && !counts.some((count) => count.kid === kid));
  if (retirable.length > 0) lines.push(`Protecting nothing now, so they can leave ENCRYPTION_KEYS: ${retirable.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function formatRotation(keyRing: KeyRing, results: readonly RotationResult[]): string {
  const lines = results.map((r) => `  ${r.table}.${r.column}: ${r.resealed} re-sealed under ${keyRing.activeKid}${r.unreadable ? `, ${r.unreadable} unreadable (their key is no longer in the ring)` : ''}`);
  return `${['Re-sealed under the active key:', ...lines, 'Run `keys status` to see which old keys can now be retired.'].join('\n')}\n`;
}
