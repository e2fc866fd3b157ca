// Bytes V8 allocates, counted exactly between two full collections (figure 9b). GCProfiler reports the heap in use
// before and after every collection, so what was allocated between two collections is the later one's "before"
// minus the earlier one's "after". Needs --expose-gc: each reading forces a full collection first.
import v8 from 'node:v8';

/** Starts counting now; the function it returns answers the bytes allocated since, as of a collection it forces. */
export function allocationCounter() {
  globalThis.gc();
  let lastAfter = v8.getHeapStatistics().used_heap_size;
  let total = 0;
  let profiler = new v8.GCProfiler();
  profiler.start();
  return () => {
    globalThis.gc();
    const { statistics } = profiler.stop();
    for (const collection of statistics) {
      total += Math.max(0, collection.beforeGC.heapStatistics.usedHeapSize - lastAfter);
      lastAfter = collection.afterGC.heapStatistics.usedHeapSize;
    }
    profiler = new v8.GCProfiler();
    profiler.start();
    return total;
  };
}
