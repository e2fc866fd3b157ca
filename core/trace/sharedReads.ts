import type { TraceRecord } from '../domain/trace.js';
import type { TraceStore } from '../../ports/traceStore.js';

/**
 * A trace store whose concurrent reads of one trace share one record: thirty clients reading a 12 MB trace at once
 * held thirty parsed copies (900 MB), although a trace never changes once its run has written it. The record is
 * kept, weakly, while anyone still holds it (a trace-log answer being sent as its client reads it), and read again
 * once nobody does; a write to its location forgets it, and so does a store that says the trace is gone (a clean-up of
 * TRACE_DIR). Readers must not change the record (nothing does: it is serialised into answers).
 */
export function shareTraceReads(store: TraceStore): TraceStore {
  const reading = new Map<string, Promise<TraceRecord | undefined>>();
  const held = new Map<string, WeakRef<TraceRecord>>();
  const forget = new FinalizationRegistry<string>((location) => {
    if (held.get(location)?.deref() === undefined) held.delete(location);
  });
  const shared: TraceStore = {
    kind: store.kind,
    locate: (key) => store.locate(key),
    async write(key, trace) {
      const location = await store.write(key, trace);
      held.delete(location);
      return location;
    },
    async read(location) {
      const record = held.get(location)?.deref();
      if (record) {
        if (!store.exists || (await store.exists(location))) return record;
        held.delete(location);
      }
      let pending = reading.get(location);
      if (!pending) {
        pending = store.read(location).then((read) => {
          if (read) {
            held.set(location, new WeakRef(read));
            forget.register(read, location);
          }
          return read;
        });
        reading.set(location, pending);
        const done = () => reading.delete(location);
        pending.then(done, done);
      }
      return pending;
    },
  };
  // What the store says of locations it owns (the API's TRACE_DIR against a worker's elsewhere) is unchanged.
  if (store.owns) shared.owns = (location) => store.owns!(location);
  if (store.exists) shared.exists = (location) => store.exists!(location);
  return shared;
}
