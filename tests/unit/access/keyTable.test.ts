import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { timingSafeEqual } from 'node:crypto';
import { KeyTable, sha256, type HashedKey } from '../../../adapters/access/keyTable.js';

const keyOf = (id: string, secret: string, extra: Partial<HashedKey['key']> = {}): HashedKey => ({ key: { id, scopes: ['read'], ...extra }, digest: sha256(secret) });
const KEYS = [keyOf('first', 'fgk_one'), keyOf('second', 'fgk_two'), keyOf('third', 'fgk_three')];

test('every lookup compares 32-byte digests with every key, whichever matched and whatever was presented', () => {
  const compared: [number, number][] = [];
  const table = new KeyTable(KEYS, undefined, (a, b) => {
    compared.push([a.byteLength, b.byteLength]);
    return timingSafeEqual(a, b);
  });
  const presented = ['fgk_one', 'fgk_three', 'fgk_none', '', 'x'.repeat(5000)];
  const found = presented.map((secret) => table.lookup(secret)?.id);
  assert.equal(found, ['first', 'third', undefined, undefined, undefined]);
  // No early exit on a match: the first key's match still compares the two others.
  assert.equal(compared, Array(presented.length * KEYS.length).fill([32, 32]));
});

test('an expired key authenticates nothing; one not yet expired does', () => {
  let now = new Date('2027-01-01T00:00:00Z');
  const table = new KeyTable([keyOf('temp', 'fgk_temp', { expiresAt: new Date('2027-01-02T00:00:00Z') })], () => now);
  assert.is(table.lookup('fgk_temp')?.id, 'temp');
  now = new Date('2027-01-02T00:00:00Z');
  assert.is(table.lookup('fgk_temp'), undefined, 'at its expiry');
  now = new Date('2027-03-01T00:00:00Z');
  assert.is(table.lookup('fgk_temp'), undefined);
});

test.run();
