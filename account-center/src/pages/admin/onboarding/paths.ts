/** Where App.tsx mounts the schema editor. */
export const ADMIN_BASE = '/admin/onboarding';

export const platformPath = (platformKey: string) => `${ADMIN_BASE}/${encodeURIComponent(platformKey)}`;
export const newFieldPath = (platformKey: string) => `${platformPath(platformKey)}/new`;
export const fieldPath = (platformKey: string, fieldKey: string) => `${platformPath(platformKey)}/fields/${encodeURIComponent(fieldKey)}`;
