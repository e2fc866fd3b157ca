// The server side of the bench's memory figures: over IPC, 'rss:reset' starts a new peak, 'rss:read' answers
// {peak, current} in bytes, 'gc' collects first (the bench runs servers with --expose-gc). Every answer also carries
// `cpu`, the process's CPU time so far in microseconds (user + system, all its threads), for CPU per request.
const SAMPLE_MS = 10;

export function serveRssProbe() {
  if (!process.send) return;
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  sampler.unref();
  process.on('message', (message) => {
    if (message.command === 'gc') globalThis.gc?.();
    const current = process.memoryUsage.rss();
    peak = Math.max(peak, current);
    if (message.command === 'rss:reset') peak = current;
    const { user, system } = process.cpuUsage();
    process.send({ id: message.id, peak, current, cpu: user + system });
  });
  process.channel?.unref();
}
