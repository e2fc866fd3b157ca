// The server side of the bench's memory figures: over IPC, 'rss:reset' starts a new peak, 'rss:read' answers
// {peak, current} in bytes, 'gc' collects first (the bench runs servers with --expose-gc). Every answer also carries
// `cpu`, the process's CPU time so far in microseconds (user + system, all its threads), for CPU per request.
const SAMPLE_MS = 10;

/**
 * RSS is sampled only from an 'rss:reset' to the next 'rss:read', the span a peak is asked for. A sampler running
 * all the time cost an idle server 13.7 ms of CPU per second on the bench machine (137 µs per RSS read, most of it
 * the wake-up), which figure 9 charged to the API's requests: 6.4 % of its busy samples under run-and-wait load.
 */
export function serveRssProbe() {
  if (!process.send) return;
  let peak = process.memoryUsage.rss();
  let sampler;
  const stopSampling = () => {
    clearInterval(sampler);
    sampler = undefined;
  };
  process.on('message', (message) => {
    if (message.command === 'gc') globalThis.gc?.();
    const current = process.memoryUsage.rss();
    peak = Math.max(peak, current);
    if (message.command === 'rss:reset') {
      peak = current;
      stopSampling();
      sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, SAMPLE_MS);
      sampler.unref();
    }
    if (message.command === 'rss:read') stopSampling();
    const { user, system } = process.cpuUsage();
    process.send({ id: message.id, peak, current, cpu: user + system });
  });
  process.channel?.unref();
}
