/**
 * A timeout signal for calls to the provider that costs nothing unless it fires.
 *
 * `AbortSignal.timeout(ms)` builds a signal, a timer and a DOMException for every call
 * (and openid-client makes one more per call for its own 30 s default). Here every call
 * started within the same slot of SLOT_MS shares one signal, which aborts SLOT_MS after the
 * last of them may have started plus `timeoutMs`: a call is cut off between `timeoutMs` and
 * `timeoutMs + SLOT_MS` after it began, one timer and one controller serve a whole slot, and
 * the TimeoutError is made only when the signal fires. A finished fetch has already dropped
 * its listener, so aborting a slot touches only the calls still waiting.
 */
const SLOT_MS = 100;

export function coarseTimeout(timeoutMs: number): () => AbortSignal {
  let slotEnds = 0;
  let current: AbortSignal | undefined;
  return () => {
    const now = Date.now();
    if (!current || now >= slotEnds) {
      const controller = new AbortController();
      slotEnds = now + SLOT_MS;
      setTimeout(() => controller.abort(new DOMException(`The operation was aborted due to timeout (${timeoutMs} ms)`, 'TimeoutError')), timeoutMs + SLOT_MS).unref();
      current = controller.signal;
    }
    return current;
  };
}
