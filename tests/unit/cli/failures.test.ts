// What the `flowgate` command prints about a failure (composition/cli/failures.ts): the lines and the exit code.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FlowgateApiError } from '../../../adapters/client/index.js';
import { describeFailure } from '../../../composition/cli/failures.js';

const validation = suite('describeFailure: a ValidationError');

const validationError = (issues: { code: string; path: (string | number)[]; message: string }[]) =>
  new FlowgateApiError({ error: 'ValidationError', message: 'request body is invalid', status: 400, issues, requestId: 'r-1' });

validation('its line, then one line per issue, path: message, exit 3', () => {
  const described = describeFailure(
    validationError([
      { code: 'invalid_type', path: ['input', 'items', 0, 'sku'], message: 'Invalid input: expected string, received number' },
      { code: 'custom', path: ['input', 'a b'], message: 'first line\nsecond line' },
      { code: 'unrecognized_keys', path: [], message: 'Unrecognized key: "x"' },
    ]),
  );
  assert.equal(described, {
    exitCode: 3,
    lines: [
      'ValidationError: request body is invalid (HTTP 400, request id r-1)',
      '  input.items[0].sku: Invalid input: expected string, received number',
      '  input["a b"]: first line',
      '  (body): Unrecognized key: "x"',
    ],
  });
});

validation('at most 20 issues, then how many more and where to see them', () => {
  const issues = Array.from({ length: 23 }, (_, index) => ({ code: 'too_small', path: ['input', 'rows', index], message: 'too small' }));
  const { lines } = describeFailure(validationError(issues));
  assert.is(lines.length, 1 + 20 + 1);
  assert.is(lines[20], '  input.rows[19]: too small');
  assert.is(lines.at(-1), '  ... and 3 more issues (--json prints them all)');
});

validation('an error without issues is its one line', () => {
  const notFound = new FlowgateApiError({ error: 'WorkflowNotFoundError', message: 'no run', status: 404 });
  assert.equal(describeFailure(notFound), { exitCode: 3, lines: ['WorkflowNotFoundError: no run (HTTP 404)'] });
});

validation.run();
