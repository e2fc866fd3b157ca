// The server side of the bench's memory figures: over IPC, 'rss:reset' starts a new peak, 'rss:read' answers
// {peak, current} in bytes, 'gc' collects first (the bench runs servers with --expose-gc). Every answer also carries
// `cpu`, the process's CPU time so far in microseconds (user + system, all its threads), for CPU per request.
// 'loop:start' and 'loop:stop' measure the event loop's delay in between (and, when the server has a commit timer,
// bench/processes/commitTimes.mjs, its store's commits): `loop` and `commits` in the answer to 'loop:stop'.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const SAMPLE_MS = 10;
/** The loop-delay monitor's timer: every 10 ms a sample of how late it fired. */
const LOOP_RESOLUTION_MS = 10;

/**
 * RSS is sampled only from an 'rss:reset' to the next 'rss:read', the span a peak is asked for. A sampler running
 * all the time cost an idle server 13.7 ms of CPU per second on the bench machine (137 µs per RSS read, most of it
 * the wake-up), which figure 9 charged to the API's requests: 6.4 % of its busy samples under run-and-wait load.
 */
export function serveRssProbe({ commitTimes } = {}) {
  if (!process.send) return;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
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
    if (message.command === 'loop:start') {
      loopDelay.reset();
      loopDelay.enable();
      commitTimes?.start();
    }
    let measured = {};
    if (message.command === 'loop:stop') {
      loopDelay.disable();
      const ms = (ns) => ns / 1e6;
      measured = {
        loop: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max), samples: loopDelay.count },
        ...(commitTimes ? { commits: commitTimes.stop() } : {}),
      };
    }
    const { user, system } = process.cpuUsage();
    process.send({ id: message.id, peak, current, cpu: user + system, ...measured });
  });
  process.channel?.unref();
}
