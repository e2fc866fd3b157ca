// The suites `npm test` runs. Contract suites run once per engine: the same files, parameterised by
// FLOWGATE_TEST_ENGINE (tests/support/engines.ts reads it).
export function suites() {
  return [
    { name: 'unit', dir: 'tests/unit' },
    { name: 'contract (memory engine)', dir: 'tests/contract', env: { FLOWGATE_TEST_ENGINE: 'memory' } },
    { name: 'integration', dir: 'tests/integration' },
  ];
}
