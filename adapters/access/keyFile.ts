import { z } from 'zod';
import { KEY_ID_PATTERN, KEY_ID_RULE, SCOPES, type AccessKey } from '../../core/domain/access.js';
import { sha256Hex, type HashedKey, type ReservedKey } from './keyTable.js';

/**
 * A key file that cannot be used (API_KEYS_FILE, docs/security.md): one line naming the file and the entry. At start
 * the server does not start with it; on a reload the previous keys stay.
 */
export class AccessKeyFileError extends Error {
  override readonly name = 'AccessKeyFileError';
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
/** The SHA-256 of the empty string: an entry with it would let an empty bearer token in. */
const EMPTY_SECRET_SHA256 = sha256Hex('');

const nameList = (what: string) =>
  z
    .array(z.string().min(1, `a ${what} name is not empty`), { error: `is a list of ${what} names` })
    .min(1, `is not empty (leave it out for every ${what})`);

const KeyEntrySchema = z.strictObject(
  {
    id: z.string({ error: 'is missing' }).regex(KEY_ID_PATTERN, KEY_ID_RULE),
    sha256: z
      .string({ error: 'is missing (the hex SHA-256 of the secret; `flowgate keys create` prints it)' })
      .regex(HEX_SHA256, 'is not a SHA-256 in hex (64 characters 0-9, a-f)')
      .refine((hash) => hash.toLowerCase() !== EMPTY_SECRET_SHA256, 'is the SHA-256 of an empty secret'),
    scopes: z
      .array(z.string(), { error: `is missing (a list of ${SCOPES.join(', ')})` })
      .min(1, `is not empty (${SCOPES.join(', ')})`)
      .superRefine((scopes, context) => {
        for (const [index, scope] of scopes.entries()) {
          if (!(SCOPES as readonly string[]).includes(scope)) {
            context.addIssue({ code: 'custom', path: [index], message: `is ${JSON.stringify(scope)}, not a scope (${SCOPES.join(', ')})` });
          }
        }
      }),
    catalogs: nameList('catalog').optional(),
    workflows: nameList('workflow').optional(),
    expiresAt: z.iso.datetime({ offset: true, error: 'is an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `has unknown fields: ${issue.keys.join(', ')}` : 'is an object') },
);

const KeyFileSchema = z.strictObject(
  { keys: z.array(z.unknown(), { error: 'is missing (a list of keys)' }) },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `has unknown fields: ${issue.keys.join(', ')}` : 'is an object { "keys": [...] }') },
);

/** One entry of the file, as written (the JSON `flowgate keys create` prints). */
export type KeyFileEntry = z.input<typeof KeyEntrySchema>;

export interface ParseKeysOptions {
  /** Named in every message: the file's path, or what else the keys came from. */
  source: string;
  /** Keys defined elsewhere (API_AUTH_TOKEN, createFlowgate's apiKeys): their ids and secrets may not be used again. */
  reserved?: readonly ReservedKey[] | undefined;
}

/** The key file's text as hashed keys; AccessKeyFileError naming the first bad entry. */
export function parseKeyFile(text: string, options: ParseKeysOptions): HashedKey[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'it is empty' : whereJsonBreaks((error as Error).message);
    throw new AccessKeyFileError(`${options.source}: not JSON (${reason})`);
  }
  const file = KeyFileSchema.safeParse(json);
  if (!file.success) throw new AccessKeyFileError(`${options.source}: ${describeIssue(file.error.issues[0]!, 'the file')}`);
  return parseKeyEntries(file.data.keys, options);
}

/**
 * Where the file stops being JSON, from JSON.parse's message, without the excerpt of the text V8 quotes in some of them:
 * a secret pasted into the file (docs/security.md names it as a likely mistake) would be logged, and printed at start.
 */
function whereJsonBreaks(message: string): string {
  if (message.includes('Unexpected end of JSON input')) return 'it ends before its last value is complete';
  const place = /line (\d+) column (\d+)/.exec(message);
  if (place) return `a syntax error at line ${place[1]}, column ${place[2]}`;
  return 'a character no JSON value has there; a secret belongs in quotes, or only its sha256 in the file';
}

/** Key entries (the file's `keys`, or the entries an embedder gives) as hashed keys; AccessKeyFileError naming the first bad one. */
export function parseKeyEntries(entries: readonly unknown[], options: ParseKeysOptions): HashedKey[] {
  const keys: HashedKey[] = [];
  const ids = new Map<string, number>();
  const hashes = new Map<string, number>();
  // Reserved keys are numbered -1, -2, ...: an entry's index says where the id or secret is already used.
  const reserved = options.reserved ?? [];
  for (const [index, { key, digest }] of reserved.entries()) {
    ids.set(key.id, -1 - index);
    hashes.set(digest.toString('hex'), -1 - index);
  }
  const where = (index: number) => (index < 0 ? reserved[-1 - index]!.source : `keys[${index}]`);
  for (const [index, raw] of entries.entries()) {
    const rawId = (raw as { id?: unknown } | null)?.id;
    const named = `keys[${index}]${typeof rawId === 'string' ? ` (id ${JSON.stringify(rawId)})` : ''}`;
    const entry = KeyEntrySchema.safeParse(raw);
    if (!entry.success) throw new AccessKeyFileError(`${options.source}: ${named}: ${describeIssue(entry.error.issues[0]!, 'the entry')}`);
    const { id, sha256, scopes, catalogs, workflows, expiresAt } = entry.data;
    const sameId = ids.get(id);
    if (sameId !== undefined) throw new AccessKeyFileError(`${options.source}: ${named}: id is already used by ${where(sameId)}`);
    const hash = sha256.toLowerCase();
    const sameHash = hashes.get(hash);
    if (sameHash !== undefined) throw new AccessKeyFileError(`${options.source}: ${named}: sha256 is the same secret as ${where(sameHash)}'s`);
    ids.set(id, index);
    hashes.set(hash, index);
    const key: AccessKey = {
      id,
      scopes: [...new Set(scopes)] as AccessKey['scopes'],
      ...(catalogs === undefined ? {} : { catalogs }),
      ...(workflows === undefined ? {} : { workflows }),
      ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt) }),
    };
    keys.push({ key: Object.freeze(key), digest: Buffer.from(hash, 'hex') });
  }
  return keys;
}

/** `scopes[1] is "deploy", not a scope (...)`, or `id is missing`. */
function describeIssue(issue: z.core.$ZodIssue, whole: string): string {
  const path = issue.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`)).join('');
  return path === '' ? `${whole} ${issue.message}` : `${path} ${issue.message}`;
}
