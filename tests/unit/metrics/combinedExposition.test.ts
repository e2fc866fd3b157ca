// One scrape of a worker's own metrics and the Temporal SDK's (adapters/metrics/combinedExposition.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CombinedExposition } from '../../../adapters/metrics/combinedExposition.js';
import { PromMetrics } from '../../../adapters/metrics/promMetrics.js';
import { parseExposition } from '../../support/prometheus.js';

const SDK_TEXT = '# HELP temporal_workflow_completed Count of successfully completed workflows\n# TYPE temporal_workflow_completed counter\ntemporal_workflow_completed{task_queue="examples"} 3';

test("the process's own metrics, then each source's, each family once, in the own exposition's content type", async () => {
  const own = new PromMetrics({ processMetrics: false });
  own.stepAttempt({ workflow: 'summarise', step: 'count_words', outcome: 'success', seconds: 0.01, totalCost: 0.5, tokens: 10, httpCalls: 1 });
  const combined = new CombinedExposition(own, [{ name: 'Temporal SDK', text: async () => SDK_TEXT }]);
  assert.is(combined.contentType, own.contentType);
  const text = await combined.exposition();
  assert.ok(text.endsWith('\n'), 'a source without a final newline gets one');
  const parsed = parseExposition(text);
  assert.is(parsed.types.get('temporal_workflow_completed'), 'counter');
  assert.is(parsed.types.get('flowgate_step_attempt_duration_seconds'), 'histogram');
  assert.ok(text.indexOf('flowgate_step_') < text.indexOf('temporal_workflow_completed'), 'own metrics first');
  const completed = parsed.samples.find((sample) => sample.name === 'temporal_workflow_completed');
  assert.equal([completed?.labels, completed?.value], [{ task_queue: 'examples' }, 3]);
});

test('a source that cannot be read leaves a comment naming it, and the rest of the scrape', async () => {
  const own = new PromMetrics({ processMetrics: false });
  const combined = new CombinedExposition(own, [{ name: 'Temporal SDK', text: async () => Promise.reject(new Error('connect ECONNREFUSED\n127.0.0.1:1')) }]);
  const text = await combined.exposition();
  assert.match(text, /^# Temporal SDK metrics could not be read: connect ECONNREFUSED 127\.0\.0\.1:1$/m);
  assert.ok(parseExposition(text).types.has('flowgate_http_request_duration_seconds'), "the process's own metrics are still there");
});

test.run();
