import type { ReactNode } from 'react';

/** A calm message: information, success, or a warning, announced politely. */
export function Notice({ tone = 'info', title, children }: { tone?: 'info' | 'success' | 'warning'; title?: string; children?: ReactNode }) {
  return (
    <div className={`notice notice-${tone}`} role="status">
      {title ? <p className="notice-title">{title}</p> : null}
      {children}
    </div>
  );
}
