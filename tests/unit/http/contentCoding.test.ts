import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { preferredCoding } from '../../../adapters/http/contentCoding.js';

/** Accept-Encoding (RFC 9110 12.5.3): which coding answers, of brotli and gzip (brotli preferred on a tie) or none. */
const BR_FIRST = ['br', 'gzip'] as const;
const choose = (header: string | string[] | undefined, offered: readonly ('br' | 'gzip')[] = BR_FIRST) => preferredCoding(header, offered);

test('no Accept-Encoding, or an empty one: identity', () => {
  assert.is(choose(undefined), 'identity');
  assert.is(choose(''), 'identity');
  assert.is(choose('  '), 'identity');
});

test('the coding the client names; on a tie the server order decides', () => {
  assert.is(choose('gzip'), 'gzip');
  assert.is(choose('br'), 'br');
  assert.is(choose('gzip, deflate, br'), 'br');
  assert.is(choose('gzip, br', ['gzip', 'br']), 'gzip', 'the order given wins a tie, not the client order');
  assert.is(choose('deflate'), 'identity', 'a coding the server does not offer');
  assert.is(choose('zstd, compress'), 'identity');
});

test('q-values: the higher wins, q=0 refuses', () => {
  assert.is(choose('br;q=0.5, gzip'), 'gzip');
  assert.is(choose('br;q=1.0, gzip;q=0.999'), 'br');
  assert.is(choose('gzip;q=0, br;q=0'), 'identity');
  assert.is(choose('br;q=0, gzip;q=0.1'), 'gzip');
  assert.is(choose('gzip;q=0.000'), 'identity');
  assert.is(choose('GZIP;Q=0.5'), 'gzip', 'names and the q parameter are case-insensitive');
  assert.is(choose(' br ; q = 0.8 , gzip ; q=0.9 '), 'gzip', 'blanks around names and parameters');
});

test('* rates every coding not named; identity is what remains', () => {
  assert.is(choose('*'), 'br');
  assert.is(choose('*', ['gzip', 'br']), 'gzip');
  assert.is(choose('br;q=0, *'), 'gzip');
  assert.is(choose('*;q=0'), 'identity');
  assert.is(choose('gzip;q=0.2, *;q=0.5'), 'br', '* gives br 0.5, more than the gzip named at 0.2');
  assert.is(choose('*;q=0, gzip'), 'gzip');
});

test('identity rated above every coding keeps the bytes as they are; rated alike, the server compresses', () => {
  assert.is(choose('identity, gzip;q=0.5'), 'identity');
  assert.is(choose('identity;q=0.5, gzip;q=0.5'), 'gzip');
  assert.is(choose('identity;q=0, gzip'), 'gzip');
  assert.is(choose('identity;q=0'), 'identity', 'nothing acceptable: the server answers unencoded rather than refuse');
});

test('x-gzip is gzip; a name given twice counts at its better rating; several header lines are one list', () => {
  assert.is(choose('x-gzip'), 'gzip');
  assert.is(choose('gzip;q=0, gzip;q=0.5'), 'gzip');
  assert.is(choose(['gzip;q=0.5', 'br;q=0.9']), 'br');
});

test('an element whose q is not a qvalue says nothing and is left out', () => {
  for (const bad of ['br;q=2', 'br;q=0.1234', 'br;q=x', 'br;q=-1', 'br;q=']) {
    assert.is(choose(bad), 'identity', bad);
    assert.is(choose(`${bad}, gzip`), 'gzip', `${bad}, gzip`);
  }
  assert.is(choose(',,gzip,'), 'gzip', 'empty elements');
});

test.run();
