// The rules of "download my data" that the contract states (startDataExport, createDataExportLink).

/** Exports a person may start within DATA_EXPORT_WINDOW_SECONDS (failed ones do not count). */
export const DATA_EXPORTS_PER_WINDOW = 3;
export const DATA_EXPORT_WINDOW_SECONDS = 24 * 3600;
/** How long a ready export is kept before the purge deletes it (a pending one: from its request). */
export const DATA_EXPORT_LIFETIME_SECONDS = 48 * 3600;
/** A download link works once, for this long. */
export const DATA_EXPORT_LINK_SECONDS = 5 * 60;
