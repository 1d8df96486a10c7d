import type { components } from '../../../generated/gateway.ts';
import type { RecordRow } from './repository.ts';

export type AgreementRecordView = components['schemas']['AgreementRecord'];

/** One row of the record as the contract shows it, with the text as it was shown. */
export function toRecordView(row: RecordRow): AgreementRecordView {
  return {
    documentKey: row.documentKey,
    kind: row.kind,
    version: row.version,
    action: row.action,
    language: row.language,
    sha256: row.textDigest,
    recordedAt: row.recordedAt.toISOString(),
    sessionId: row.sessionId,
    recordedVia: row.recordedVia,
    recordedByPlatformKey: row.recordedByPlatformKey,
    text: row.text,
  };
}
