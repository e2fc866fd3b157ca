import { test } from 'uvu';
import { assertCallbackUrl, callbackAddressProblem } from '../../core/domain/callback.js';
import { ValidationError } from '../../core/domain/errors.js';
import * as assert from 'uvu/assert';
import {
  addressRefusal,
  describeRefusal,
  EMPTY_ALLOWLIST,
  hostAddress,
  isLoopbackName,
  loopbackNameRefusal,
  outboundRefusal,
  parseOutboundAllowlist,
  unlistedHostRefusal,
  UNLISTED,
  type AddressCategory,
} from '../../core/domain/outboundAddress.js';

/** The address rules of outbound calls (docs/reliability.md, "Outbound calls"): pure functions, no packet sent. */

const REFUSED: [string, AddressCategory][] = [
  // IPv4
  ['169.254.169.254', 'cloud metadata'],
  ['100.100.100.200', 'cloud metadata'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['169.254.0.1', 'link-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fec0::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['[fe80::1]', 'link-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['64:ff9b:1::a', 'private'],
  // IPv6 forms that carry an IPv4 address
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:A9FE:A9FE', 'cloud metadata'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:0:a01:203', 'private'], // IPv4-translated
  ['64:ff9b::a9fe:a9fe', 'cloud metadata'], // NAT64 of 169.254.169.254
  ['64:ff9b::192.168.0.1', 'private'],
  ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:c0a8:101::1', 'private'],
  ['::127.0.0.1', 'loopback'], // IPv4-compatible
  ['::a00:1', 'private'],
];

const ALLOWED = ['93.184.215.14', '1.1.1.1', '8.8.8.8', '172.32.0.1', '100.128.0.1', '169.255.0.1', '11.0.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];

test('every refused kind of address, in every IPv4 and IPv6 spelling, names its category', () => {
  for (const [address, category] of REFUSED) {
    const refusal = addressRefusal(address);
    assert.ok(refusal, `${address} is refused`);
    assert.is(refusal!.category, category, address);
  }
});

test('public addresses pass, also when an IPv6 form carries a public IPv4 address', () => {
  for (const address of ALLOWED) assert.is(addressRefusal(address), undefined, address);
});

test('a refusal reads as one sentence, with the rule and how an IPv6 form carried the IPv4 address', () => {
  assert.is(describeRefusal(addressRefusal('169.254.169.254')!), '169.254.169.254 is a cloud metadata address (169.254.169.254/32)');
  assert.is(describeRefusal(addressRefusal('::ffff:10.0.0.1')!), '::ffff:a00:1 is a private address (10.0.0.0/8, IPv4-mapped 10.0.0.1)');
  assert.is(describeRefusal(addressRefusal('fe80::1')!), 'fe80::1 is a link-local address (fe80::/10)');
  assert.is(describeRefusal(addressRefusal('0.0.0.0')!), '0.0.0.0 is an unspecified address (0.0.0.0/8)');
});

test('the WHATWG URL parser turns short, decimal, octal and hex IPv4 hosts and IPv6 literals into addresses the rules see', () => {
  const hosts: [string, AddressCategory][] = [
    ['http://127.1/', 'loopback'],
    ['http://127.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0/', 'unspecified'],
    ['http://2852039166/', 'cloud metadata'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'cloud metadata'],
    ['http://10.1/', 'private'],
    ['http://[::1]:8080/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:169.254.169.254]/', 'cloud metadata'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'],
    ['http://[fe80::1]/', 'link-local'],
  ];
  for (const [url, category] of hosts) {
    const hostname = new URL(url).hostname;
    const address = hostAddress(hostname);
    assert.ok(address, `${url} names an address (${hostname})`);
    assert.is(outboundRefusal(hostname, address!, EMPTY_ALLOWLIST)?.category, category, url);
  }
  // A name is no address: it is checked after resolution, on the address connected to.
  for (const url of ['http://localhost/', 'http://metadata.google.internal/', 'http://127.0.0.1.nip.io/', 'http://example.com/']) {
    assert.is(hostAddress(new URL(url).hostname), undefined, url);
  }
});

test('OUTBOUND_ALLOWLIST opens host names, .domains, addresses and networks; IPv4-mapped addresses match IPv4 networks', () => {
  const { allowlist, problems } = parseOutboundAllowlist(' 127.0.0.0/8 , ::1, receiver.internal, .svc.cluster.local, *.corp.example, 10.1.2.3, fd00::/8 ');
  assert.equal(problems, []);
  assert.equal(allowlist.entries, ['127.0.0.0/8', '::1', 'receiver.internal', '.svc.cluster.local', '*.corp.example', '10.1.2.3', 'fd00::/8']);
  const allowed: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['localhost', '127.0.0.1'],
    ['localhost', '127.0.0.53'],
    ['[::1]', '::1'],
    ['x', '::ffff:127.0.0.1'],
    ['RECEIVER.internal.', '10.9.9.9'],
    ['hooks.ns.svc.cluster.local', '10.0.0.7'],
    ['a.b.corp.example', '192.168.0.1'],
    ['y', '10.1.2.3'],
    ['z', 'fd00:ec2::254'],
  ];
  for (const [host, address] of allowed) assert.is(outboundRefusal(host, address, allowlist), undefined, `${host} -> ${address}`);
  const refused: [string, string][] = [
    ['localhost', '::2'],
    ['svc.cluster.local', '10.0.0.7'],
    ['receiver.internal.evil', '10.0.0.1'],
    ['corp.example.evil', '192.168.0.1'],
    ['y', '10.1.2.4'],
    ['metadata', '169.254.169.254'],
  ];
  for (const [host, address] of refused) assert.ok(outboundRefusal(host, address, allowlist), `${host} -> ${address}`);
  // An explicit entry opens anything it names, metadata included: the operator chose it.
  assert.is(outboundRefusal('m', '169.254.169.254', parseOutboundAllowlist('169.254.169.254').allowlist), undefined);
  assert.is(outboundRefusal('m', '8.8.8.8', EMPTY_ALLOWLIST), undefined, 'a public address needs no entry');
});

test('a bad allow-list entry is named with what is wrong with it', () => {
  const { problems, allowlist } = parseOutboundAllowlist('10.0.0.1/8,127.0.0.0/33,::1/129,not a host,1.2.3.4/x,,fe80::/10');
  assert.equal(problems, [
    '"10.0.0.1/8" has bits set after its /8 prefix (did you mean 10.0.0.0/8?)',
    '"127.0.0.0/33" has a prefix length outside 0..32',
    '"::1/129" has a prefix length outside 0..128',
    '"not a host" is not a host name, a .domain, an IP address or a CIDR network',
    '"1.2.3.4/x" has a prefix length outside 0..32',
  ]);
  assert.is(allowlist.networks.length, 1, 'the good entry is kept');
  assert.equal(parseOutboundAllowlist(undefined).allowlist.entries, []);
  assert.equal(parseOutboundAllowlist('').problems, []);
});

test('an address that does not parse is refused, never let through', () => {
  for (const address of ['', 'localhost', '1.2.3', '1.2.3.256', '01.2.3.4', '::1::', '1:2:3:4:5:6:7:8:9', 'g::1']) {
    assert.ok(outboundRefusal('h', address, EMPTY_ALLOWLIST), JSON.stringify(address));
  }
});

test('OUTBOUND_ALLOW_PUBLIC=off: only what the list names is called; an unnamed host is refused before it is resolved', () => {
  const listedOnly = { ...parseOutboundAllowlist('receiver.internal, .svc.example, 203.0.113.0/24, 127.0.0.1').allowlist, listedOnly: true };
  // Public addresses off the list are refused too; the address rules still name what they know first.
  assert.is(outboundRefusal('93.184.215.14', '93.184.215.14', listedOnly)?.category, UNLISTED);
  assert.is(describeRefusal(outboundRefusal('93.184.215.14', '93.184.215.14', listedOnly)!), `93.184.215.14 is ${UNLISTED} (OUTBOUND_ALLOW_PUBLIC=off)`);
  assert.is(outboundRefusal('10.0.0.1', '10.0.0.1', listedOnly)?.category, 'private');
  // On the list: by name (whatever it resolves to), by .domain, by network, by address.
  assert.is(outboundRefusal('receiver.internal', '93.184.215.14', listedOnly), undefined);
  assert.is(outboundRefusal('a.svc.example', '10.0.0.1', listedOnly), undefined);
  assert.is(outboundRefusal('203.0.113.7', '203.0.113.7', listedOnly), undefined);
  assert.is(outboundRefusal('127.0.0.1', '127.0.0.1', listedOnly), undefined);
  // Names are judged before resolution: by name only.
  assert.is(unlistedHostRefusal('example.com', listedOnly)?.address, 'example.com');
  assert.is(unlistedHostRefusal('EXAMPLE.com.', listedOnly)?.address, 'example.com');
  assert.is(unlistedHostRefusal('receiver.internal', listedOnly), undefined);
  assert.is(unlistedHostRefusal('b.svc.example', listedOnly), undefined);
  assert.is(unlistedHostRefusal('203.0.113.7', listedOnly), undefined, 'an address host is left to outboundRefusal');
  // The default (public allowed) never refuses a name before resolution.
  assert.is(unlistedHostRefusal('example.com', EMPTY_ALLOWLIST), undefined);
});

test('names that always mean loopback (RFC 6761: localhost, *.localhost), any case, a trailing dot', () => {
  for (const name of ['localhost', 'LOCALHOST', 'LocalHost.', 'api.localhost', 'a.b.LOCALHOST.', '[localhost]']) assert.ok(isLoopbackName(name), name);
  for (const name of ['localhost.example', 'mylocalhost', 'localhostx', 'localhost.evil.com', 'notlocalhost', '127.0.0.1', '::1', 'local', '']) {
    assert.not.ok(isLoopbackName(name), name);
  }
});

test('a loopback name is refused by its name, before any lookup, as its addresses are; the allow-list may open it', () => {
  const refusal = loopbackNameRefusal('LocalHost.', EMPTY_ALLOWLIST);
  assert.equal(refusal, { address: 'localhost', category: 'loopback', network: 'localhost, *.localhost', byName: true });
  assert.is(describeRefusal(refusal!), 'localhost is a loopback name (localhost, *.localhost: they always mean 127.0.0.1 and ::1)');
  assert.is(loopbackNameRefusal('hooks.localhost', EMPTY_ALLOWLIST)?.address, 'hooks.localhost');
  assert.is(loopbackNameRefusal('example.com', EMPTY_ALLOWLIST), undefined, 'another name is left to its addresses');
  assert.is(loopbackNameRefusal('127.0.0.1', EMPTY_ALLOWLIST), undefined, 'an address is left to outboundRefusal');
  // Opened by naming it (or a .domain holding it), or by a loopback address it may stand for: then its address decides.
  for (const list of ['localhost', '127.0.0.1', '127.0.0.2', '127.0.0.0/8', '0.0.0.0/0', '::1', '::/0', '::ffff:127.0.0.1']) {
    assert.is(loopbackNameRefusal('localhost', parseOutboundAllowlist(list).allowlist), undefined, list);
  }
  assert.is(loopbackNameRefusal('api.localhost', parseOutboundAllowlist('.localhost').allowlist), undefined);
  // What opens no loopback address leaves it refused.
  for (const list of ['10.0.0.0/8', 'receiver.internal', 'fd00::/8', '128.0.0.0/8', '::2', 'other.localhost']) {
    assert.ok(loopbackNameRefusal('localhost', parseOutboundAllowlist(list).allowlist), list);
  }
});

test('a callbackUrl on a loopback name is refused at the start like 127.0.0.1: a ValidationError at callbackUrl', () => {
  for (const url of ['http://localhost:8080/x', 'http://LOCALHOST/x', 'https://hooks.localhost/cb']) {
    assert.match(callbackAddressProblem(url) ?? '', /^callbackUrl is refused: (hooks\.)?localhost is a loopback name/, url);
    const error = (() => {
      try {
        assertCallbackUrl(url);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.instance(error, ValidationError, url);
    assert.equal((error as InstanceType<typeof ValidationError>).issues?.[0]?.path, ['callbackUrl']);
  }
  assert.match(callbackAddressProblem('http://127.0.0.1:8080/x') ?? '', /127\.0\.0\.1 is a loopback address/);
  assert.is(callbackAddressProblem('http://localhost:8080/x', parseOutboundAllowlist('localhost').allowlist), undefined);
  assert.is(callbackAddressProblem('http://localhost:8080/x', parseOutboundAllowlist('127.0.0.1').allowlist), undefined);
  assert.is(callbackAddressProblem('http://receiver.example/x'), undefined, 'another name is checked when the call is made');
});

test.run();
