/**
 * Which addresses flowgate connects to when it POSTs a webhook call or a run callback (docs/reliability.md, "Outbound
 * calls"). A URL given by a caller must not turn flowgate into a way into the network it runs in: loopback, private,
 * link-local (cloud metadata), unspecified, multicast and reserved addresses are refused unless OUTBOUND_ALLOWLIST
 * opens them, and so are the names that always mean loopback (`localhost`, `*.localhost`). Pure rules, checked by the
 * HTTP adapter on the address it is about to connect to (after DNS, on every redirect) and by the start use case on a
 * callbackUrl whose host is an address or a loopback name.
 */

export type AddressCategory = 'cloud metadata' | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'multicast' | 'reserved';

/** With OUTBOUND_ALLOW_PUBLIC=off: a host or address that is fine by the rules but not on the allow-list. */
export const UNLISTED = 'not on OUTBOUND_ALLOWLIST';

/** Why an address is refused: what it is, and the network of the rule that matched. */
export interface AddressRefusal {
  /** The address as checked (IPv6 in its canonical lower-case form); for a loopback name, the name (lower case). */
  address: string;
  category: AddressCategory | typeof UNLISTED;
  /** The rule's network, e.g. `169.254.0.0/16`; for an IPv6 address that carries an IPv4 one, that IPv4 rule's. */
  network: string;
  /** How an IPv6 address carries the IPv4 address the rule matched: `IPv4-mapped`, `NAT64`, `6to4`, ... */
  carriedAs?: string;
  /** Refused by its name (`localhost`), which always means loopback: `address` is the name. */
  byName?: true;
}

/** An address or network of the allow-list, or of a rule: the first `prefix` bits of `bytes` (4 or 16 of them). */
export interface IpNetwork {
  bytes: Uint8Array;
  prefix: number;
  text: string;
}

/** OUTBOUND_ALLOWLIST, parsed: host names (exact, or every name under a `.domain`) and IP networks that are called even though the rules refuse them. */
export interface OutboundAllowlist {
  /** The entries as written, for messages and logs. */
  readonly entries: readonly string[];
  readonly hosts: ReadonlySet<string>;
  /** `.example.internal`: every name ending so. */
  readonly domainSuffixes: readonly string[];
  readonly networks: readonly IpNetwork[];
  /**
   * OUTBOUND_ALLOW_PUBLIC=off: only what the list names is called, public addresses included. A host name is then
   * refused unless the list names it (or a `.domain` holding it), before any DNS lookup: names are not resolved to be
   * checked against the list's networks, so nothing leaves the process for a host the list does not name.
   */
  readonly listedOnly?: boolean;
}

/** Dotted-quad IPv4, decimal without leading zeros: the form DNS answers and the URL parser give (no octal ambiguity). */
const IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

const HOST_NAME = /^(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$/;

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

export const EMPTY_ALLOWLIST: OutboundAllowlist = Object.freeze({ entries: [], hosts: new Set<string>(), domainSuffixes: [], networks: [] });

// The first rule that matches names the category, so the narrower rules come first.
const IPV4_RULES: readonly [string, AddressCategory][] = [
  ['169.254.169.254/32', 'cloud metadata'], // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle ...
  ['100.100.100.200/32', 'cloud metadata'], // Alibaba Cloud
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'private'], // shared address space (carrier-grade NAT)
  ['169.254.0.0/16', 'link-local'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // and 255.255.255.255, the broadcast address
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'reserved'], // documentation
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['192.88.99.0/24', 'reserved'], // former 6to4 relays
];

const IPV6_RULES: readonly [string, AddressCategory][] = [
  ['fd00:ec2::254/128', 'cloud metadata'], // AWS over IPv6
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'private'], // unique local
  ['fec0::/10', 'private'], // site-local (deprecated)
  ['64:ff9b:1::/48', 'private'], // NAT64 for local use
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['100::/64', 'reserved'], // discard
  ['2001:db8::/32', 'reserved'], // documentation
];

/** IPv6 forms that carry an IPv4 address: the IPv4 rules decide for them. `at` is the byte offset of the IPv4 address. */
const IPV4_CARRIERS: readonly { network: string; carriedAs: string; at: number }[] = [
  { network: '::ffff:0:0/96', carriedAs: 'IPv4-mapped', at: 12 },
  { network: '::ffff:0:0:0/96', carriedAs: 'IPv4-translated', at: 12 },
  { network: '64:ff9b::/96', carriedAs: 'NAT64', at: 12 },
  { network: '2002::/16', carriedAs: '6to4', at: 2 },
  { network: '::/96', carriedAs: 'IPv4-compatible', at: 12 },
];

const parseRules = (rules: readonly [string, AddressCategory][]) => rules.map(([text, category]) => ({ network: parseNetworkStrict(text), category }));
const V4_RULES = parseRules(IPV4_RULES);
const V6_RULES = parseRules(IPV6_RULES);
const CARRIERS = IPV4_CARRIERS.map((carrier) => ({ ...carrier, parsed: parseNetworkStrict(carrier.network) }));

/** The rule that refuses `address` (an IPv4 or IPv6 address; brackets and a zone are ignored), or undefined for an address flowgate may call. */
export function addressRefusal(address: string): AddressRefusal | undefined {
  const bytes = parseIp(address);
  if (!bytes) return undefined;
  const canonical = formatIp(bytes);
  if (bytes.length === 4) {
    const rule = V4_RULES.find(({ network }) => inNetwork(bytes, network));
    return rule && { address: canonical, category: rule.category, network: rule.network.text };
  }
  const rule = V6_RULES.find(({ network }) => inNetwork(bytes, network));
  if (rule) return { address: canonical, category: rule.category, network: rule.network.text };
  const carrier = CARRIERS.find(({ parsed }) => inNetwork(bytes, parsed));
  if (!carrier) return undefined;
  const carried = addressRefusal(formatIp(bytes.slice(carrier.at, carrier.at + 4)));
  return carried && { address: canonical, category: carried.category, network: carried.network, carriedAs: `${carrier.carriedAs} ${carried.address}` };
}

/**
 * Why flowgate will not connect to `address` for a URL whose host is `host`, or undefined when it may: the address is
 * one the rules let through, or the allow-list names the host, or a network holding the address. An address that
 * does not parse is refused.
 */
export function outboundRefusal(host: string, address: string, allowlist: OutboundAllowlist): AddressRefusal | undefined {
  if (hostAllowed(normaliseHost(host), allowlist)) return undefined;
  const bytes = parseIp(address);
  if (!bytes) return { address, category: 'reserved', network: 'not an IP address' };
  const plain = unmapped(bytes);
  if (allowlist.networks.some((network) => inNetwork(plain, network) || inNetwork(bytes, network))) return undefined;
  return addressRefusal(address) ?? (allowlist.listedOnly ? unlisted(formatIp(bytes)) : undefined);
}

/**
 * With OUTBOUND_ALLOW_PUBLIC=off, the refusal of a host name the allow-list does not name, decided before the name is
 * resolved; undefined for an address host (outboundRefusal decides it) or a host the list names.
 */
export function unlistedHostRefusal(host: string, allowlist: OutboundAllowlist): AddressRefusal | undefined {
  if (!allowlist.listedOnly || hostAddress(host) !== undefined || hostAllowed(normaliseHost(host), allowlist)) return undefined;
  return unlisted(normaliseHost(host));
}

function unlisted(address: string): AddressRefusal {
  return { address, category: UNLISTED, network: 'OUTBOUND_ALLOW_PUBLIC=off' };
}

/** RFC 6761 6.3: `localhost` and every name under `.localhost` always mean loopback, whatever DNS would say. */
const LOOPBACK_NAMES = 'localhost, *.localhost';
const LOOPBACK_V4 = parseNetworkStrict('127.0.0.0/8');
const LOOPBACK_V6 = parseNetworkStrict('::1/128');
const MAPPED_LOOPBACK_V4 = parseNetworkStrict('::ffff:127.0.0.0/104');

/** Whether `host` is a name that always means loopback: `localhost`, `*.localhost` (any case, a trailing dot). */
export function isLoopbackName(host: string): boolean {
  const name = normaliseHost(host);
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The refusal of a name that always means loopback, decided from the name alone (before any lookup), as its
 * addresses would be refused: unless the allow-list names it, or opens a loopback address it may stand for (then
 * the address it resolves to decides, as for any name). Undefined for any other host.
 */
export function loopbackNameRefusal(host: string, allowlist: OutboundAllowlist): AddressRefusal | undefined {
  if (!isLoopbackName(host) || hostAddress(host) !== undefined) return undefined;
  const name = normaliseHost(host);
  if (hostAllowed(name, allowlist) || allowlist.networks.some(opensLoopback)) return undefined;
  return { address: name, category: 'loopback', network: LOOPBACK_NAMES, byName: true };
}

/** Whether an allow-list network holds a loopback address (any of 127.0.0.0/8, ::1, or 127.0.0.0/8 IPv4-mapped). */
function opensLoopback(network: IpNetwork): boolean {
  const overlaps = (rule: IpNetwork) => inNetwork(network.bytes, rule) || inNetwork(rule.bytes, network);
  return network.bytes.length === 4 ? overlaps(LOOPBACK_V4) : overlaps(LOOPBACK_V6) || overlaps(MAPPED_LOOPBACK_V4);
}

/** `169.254.169.254 is a cloud metadata address (169.254.169.254/32)`. */
export function describeRefusal(refusal: AddressRefusal): string {
  return `${refusal.address} is ${refusalKind(refusal)}`;
}

/** `a cloud metadata address (169.254.169.254/32)`; for an IPv6 form, with the IPv4 address it carries. */
export function refusalKind(refusal: AddressRefusal): string {
  if (refusal.category === UNLISTED) return `${UNLISTED} (${refusal.network})`;
  if (refusal.byName) return `a loopback name (${refusal.network}: they always mean 127.0.0.1 and ::1)`;
  const article = /^[aeiou]/.test(refusal.category) ? 'an' : 'a';
  const carried = refusal.carriedAs ? `, ${refusal.carriedAs}` : '';
  return `${article} ${refusal.category} address (${refusal.network}${carried})`;
}

/** The address a URL host names (`127.0.0.1`, `[::1]`), or undefined when the host is a name to resolve. */
export function hostAddress(hostname: string): string | undefined {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return parseIp(host) ? host : undefined;
}

/** Parses OUTBOUND_ALLOWLIST: comma-separated host names, `.domain` suffixes, IP addresses and CIDR networks. */
export function parseOutboundAllowlist(text: string | undefined): { allowlist: OutboundAllowlist; problems: string[] } {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const hosts = new Set<string>();
  const domainSuffixes: string[] = [];
  const networks: IpNetwork[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    const network = parseNetwork(entry);
    if (typeof network === 'string') problems.push(network);
    else if (network) networks.push(network);
    else if (HOST_NAME.test(entry)) hosts.add(normaliseHost(entry));
    else if (/^\*?\./.test(entry) && HOST_NAME.test(entry.replace(/^\*?\./, ''))) domainSuffixes.push(`.${normaliseHost(entry.replace(/^\*?\./, ''))}`);
    else problems.push(`"${entry}" is not a host name, a .domain, an IP address or a CIDR network`);
  }
  return { allowlist: Object.freeze({ entries, hosts, domainSuffixes, networks }), problems };
}

function hostAllowed(host: string, allowlist: OutboundAllowlist): boolean {
  return allowlist.hosts.has(host) || allowlist.domainSuffixes.some((suffix) => host.endsWith(suffix));
}

function normaliseHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

/**
 * An allow-list network: `10.0.0.0/8`, `fd00::/8`, or one address (`127.0.0.1`, `::1`). Undefined when `text` is not
 * an address at all (a host name); a message when it is a malformed network.
 */
function parseNetwork(text: string): IpNetwork | string | undefined {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const bytes = parseIp(addressText);
  if (!bytes) return slash < 0 ? undefined : `"${text}" is not a CIDR network (an IP address, "/" and a prefix length)`;
  const bits = bytes.length * 8;
  const prefixText = slash < 0 ? String(bits) : text.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) return `"${text}" has a prefix length outside 0..${bits}`;
  const network: IpNetwork = { bytes, prefix, text: `${formatIp(bytes)}/${prefix}` };
  const masked = maskTo(bytes, prefix);
  if (!masked.every((byte, index) => byte === bytes[index])) {
    return `"${text}" has bits set after its /${prefix} prefix (did you mean ${formatIp(masked)}/${prefix}?)`;
  }
  return network;
}

function parseNetworkStrict(text: string): IpNetwork {
  const network = parseNetwork(text);
  if (!network || typeof network === 'string') throw new Error(`bad built-in network ${text}`);
  return network;
}

function inNetwork(bytes: Uint8Array, network: IpNetwork): boolean {
  if (bytes.length !== network.bytes.length) return false;
  const masked = maskTo(bytes, network.prefix);
  return masked.every((byte, index) => byte === network.bytes[index]);
}

function maskTo(bytes: Uint8Array, prefix: number): Uint8Array {
  return bytes.map((byte, index) => {
    const keep = Math.max(0, Math.min(8, prefix - index * 8));
    return byte & (0xff << (8 - keep)) & 0xff;
  });
}

/** An IPv4-mapped IPv6 address as its IPv4 address (the allow-list's IPv4 networks hold it too); anything else as it is. */
function unmapped(bytes: Uint8Array): Uint8Array {
  return bytes.length === 16 && MAPPED_PREFIX.every((byte, index) => bytes[index] === byte) ? bytes.slice(12) : bytes;
}

/** A dotted-quad IPv4 address (decimal, no leading zeros) or an IPv6 address (brackets and a `%zone` ignored) as bytes. */
export function parseIp(text: string): Uint8Array | undefined {
  return parseIpv4(text) ?? parseIpv6(text);
}

function parseIpv4(text: string): Uint8Array | undefined {
  const match = IPV4.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? Uint8Array.from(octets) : undefined;
}

function parseIpv6(text: string): Uint8Array | undefined {
  let rest = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = rest.indexOf('%');
  if (zone >= 0) rest = rest.slice(0, zone);
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) is two groups.
  const tailStart = rest.lastIndexOf(':') + 1;
  if (tailStart === 0) return undefined;
  if (rest.slice(tailStart).includes('.')) {
    const tail = parseIpv4(rest.slice(tailStart));
    if (!tail) return undefined;
    rest = `${rest.slice(0, tailStart)}${((tail[0]! << 8) | tail[1]!).toString(16)}:${((tail[2]! << 8) | tail[3]!).toString(16)}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const all = [...head, ...tail];
  if (!all.every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return undefined;
  if (halves.length === 1 ? all.length !== 8 : all.length > 7) return undefined;
  const values = [...head, ...Array<string>(8 - all.length).fill('0'), ...tail].map((group) => parseInt(group, 16));
  return Uint8Array.from(values.flatMap((value) => [value >> 8, value & 0xff]));
}

/** IPv4 dotted, IPv6 in RFC 5952 form (lower case, the longest run of zero groups as `::`). */
function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, index) => (bytes[index * 2]! << 8) | bytes[index * 2 + 1]!);
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; ) {
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > best.length && end - start > 1) best = { start, length: end - start };
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
