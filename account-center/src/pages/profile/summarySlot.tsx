import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

/**
 * The page has several forms, and an ErrorSummary takes the focus when it appears: two at once
 * would pull the keyboard between them, so only one shows at a time. The form that failed last
 * owns the summary; the others keep their errors beside their inputs.
 */
const SummarySlotContext = createContext<{ owner: string | null; claim: (form: string) => void }>({ owner: null, claim: () => {} });

export function SummarySlotProvider({ children }: { children: ReactNode }) {
  const [owner, setOwner] = useState<string | null>(null);
  const claim = useCallback((form: string) => setOwner(form), []);
  const value = useMemo(() => ({ owner, claim }), [owner, claim]);
  return <SummarySlotContext.Provider value={value}>{children}</SummarySlotContext.Provider>;
}

/** Whether `form` may show its summary now, and how it takes the slot when it fails. */
export function useSummarySlot(form: string): { visible: boolean; claim: () => void } {
  const { owner, claim } = useContext(SummarySlotContext);
  return { visible: owner === null || owner === form, claim: useCallback(() => claim(form), [claim, form]) };
}
