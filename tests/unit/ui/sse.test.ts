import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser } from '../../../ui/src/sse.js';

/** The page's server-sent event parser (ui/src/sse.ts): events split anywhere across chunks. */

const STREAM = 'event: workflow\ndata: {"a":1}\n\n: keep-alive\n\nid: 3\nevent: history\ndata: {"eventId":3}\n\nid: 3/2.1\r\nevent: progress\r\ndata: line one\r\ndata: line two\r\n\r\nevent: done\ndata: {}\n\n';
const EXPECTED = [
  { event: 'workflow', data: '{"a":1}', id: undefined },
  { event: 'history', data: '{"eventId":3}', id: '3' },
  { event: 'progress', data: 'line one\nline two', id: '3/2.1' },
  { event: 'done', data: '{}', id: undefined },
];

test('whole events, comments skipped, multi-line data joined, \\n and \\r\\n line ends', () => {
  assert.equal(new SseParser().push(STREAM), EXPECTED);
});

test('the same events whatever the chunking, even a \\r\\n split in two', () => {
  for (const size of [1, 2, 3, 7, 13]) {
    const parser = new SseParser();
    const events = [];
    for (let start = 0; start < STREAM.length; start += size) events.push(...parser.push(STREAM.slice(start, start + size)));
    assert.equal(events, EXPECTED, `chunks of ${size}`);
  }
});

test('a field without a colon, a value without the space, an event without data', () => {
  assert.equal(new SseParser().push('event:x\ndata\n\nevent: lonely\n\n'), [{ event: 'x', data: '', id: undefined }]);
});

test.run();
