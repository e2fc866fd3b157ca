import type { TraceRecord } from '../domain/trace.js';
import type { TraceStore } from '../../ports/traceStore.js';

/**
 * A trace store whose concurrent reads of one trace share one record: thirty clients reading a 12 MB trace at once
 * held thirty parsed copies (900 MB), although a trace never changes once its run has written it. The record is
 * kept, weakly, while anyone still holds it (a trace-log answer being sent as its client reads it), and read again
 * once nobody does; a write to its location forgets it. Readers must not change the record (nothing does: it is
 * serialised into answers).
 */
export function shareTraceReads(store: TraceStore): TraceStore {
  const reading = new Map<string, Promise<TraceRecord | undefined>>();
  const held = new Map<string, WeakRef<TraceRecord>>();
  const forget = new FinalizationRegistry<string>((location) => {
    if (held.get(location)?.deref() === undefined) held.delete(location);
  });
  return {
    kind: store.kind,
    locate: (key) => store.locate(key),
    async write(key, trace) {
      const location = await store.write(key, trace);
      held.delete(location);
      return location;
    },
    read(location) {
      const record = held.get(location)?.deref();
      if (record) return Promise.resolve(record);
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
}
