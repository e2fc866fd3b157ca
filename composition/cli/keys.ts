import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AccessKeyFileError, parseKeyEntries, type KeyFileEntry } from '../../adapters/access/keyFile.js';
import { sha256Hex } from '../../adapters/access/keyTable.js';
import { isScope, SCOPES } from '../../core/domain/access.js';
import { textOption, UsageError, type Command, type OptionValue } from './command.js';

/** What `keys` does; one action today, named so that `keys list` or `keys check` can come without a new command. */
const ACTIONS = ['create'] as const;

/** 32 random bytes: as hard to guess as the SHA-256 that stands for it. The prefix tells a leaked secret for what it is. */
export function newKeySecret(): string {
  return `fgk_${randomBytes(32).toString('base64url')}`;
}

export const keysCommand: Command = {
  name: 'keys',
  summary: 'create an API key: its secret, once, and the entry for API_KEYS_FILE',
  synopsis: 'create --id ID --scopes S[,S] [--catalog C[,C]] [--workflow NAME[,NAME]] [--expires ISO] [--json]',
  description: [
    'Makes a new API key (docs/security.md) without a server: prints its secret, which is shown this once and kept',
    'nowhere, and the entry to add to the "keys" list of API_KEYS_FILE, which holds only the secret\'s SHA-256. A',
    'running server reads the file again when it changes (or on SIGHUP). Scopes: read (every GET), start (start,',
    'run-and-wait, rerun), control (feedback, stop, terminate, reset, the bulk operations), admin (everything).',
    '--catalog and --workflow limit the key to those catalogs and workflows; --expires ends it at that instant.',
    '--json prints one object { "secret", "entry" } for scripts.',
  ].join('\n'),
  arguments: ['ACTION'],
  options: {
    id: { type: 'string', value: 'ID', description: 'the key\'s name, shown in logs and records (letters, digits, ".", "_", "-")' },
    scopes: { type: 'string', value: 'S[,S]', description: `what the key may do: ${SCOPES.join(', ')}` },
    catalog: { type: 'string', value: 'C[,C]', description: 'only these catalogs\' workflows and runs (default: every catalog)' },
    workflow: { type: 'string', value: 'NAME[,NAME]', description: 'only these workflows and their runs (default: every workflow)' },
    expires: { type: 'string', value: 'ISO', description: 'when the key stops working, e.g. 2027-01-31T00:00:00Z (default: never)' },
    json: { type: 'boolean', description: 'print { "secret", "entry" } as one JSON object' },
  },
  async run(values, context, args) {
    const action = args[0]!;
    if (!(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action ${JSON.stringify(action)} (actions: ${ACTIONS.join(', ')})`);
    const id = textOption(values.id, 'id');
    if (id === undefined) throw new UsageError('--id is required: the key\'s name in logs and records');
    const scopes = listOption(values.scopes, 'scopes');
    if (scopes === undefined) throw new UsageError(`--scopes is required: a comma-separated list of ${SCOPES.join(', ')}`);
    const unknown = scopes.find((scope) => !isScope(scope));
    if (unknown !== undefined) throw new UsageError(`--scopes: ${JSON.stringify(unknown)} is not a scope (${SCOPES.join(', ')})`);
    const catalogs = listOption(values.catalog, 'catalog');
    const workflows = listOption(values.workflow, 'workflow');
    const expiresAt = expiryOption(values.expires);

    const secret = newKeySecret();
    const entry: KeyFileEntry = {
      id,
      sha256: sha256Hex(secret),
      scopes: [...new Set(scopes)],
      ...(catalogs === undefined ? {} : { catalogs }),
      ...(workflows === undefined ? {} : { workflows }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
    // The server's own rules, so that what is printed is an entry the server takes.
    try {
      parseKeyEntries([entry], { source: 'the new key' });
    } catch (error) {
      if (error instanceof AccessKeyFileError) throw new UsageError(error.message.replace(/^the new key: keys\[0\] \([^)]*\): /, '--'));
      throw error;
    }
    if (values.json) {
      context.stdout(`${JSON.stringify({ secret, entry })}\n`);
      return 0;
    }
    context.stdout(
      [
        'Secret of the new key, shown this once (give it to whoever calls with it; flowgate keeps only its SHA-256):',
        `  ${secret}`,
        '',
        'Add this entry to the "keys" list of API_KEYS_FILE; a running server reads the file again when it changes:',
        `  ${JSON.stringify(entry)}`,
        '',
      ].join('\n'),
    );
    return 0;
  },
};

/** `a,b` as ['a', 'b']; empty names are refused. */
function listOption(value: OptionValue, name: string): string[] | undefined {
  const text = textOption(value, name);
  if (text === undefined) return undefined;
  const items = text.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) throw new UsageError(`--${name} is a comma-separated list without empty names, got ${JSON.stringify(text)}`);
  return items;
}

const IsoDateTime = z.iso.datetime({ offset: true });

function expiryOption(value: OptionValue): string | undefined {
  const text = textOption(value, 'expires');
  if (text === undefined) return undefined;
  if (!IsoDateTime.safeParse(text).success) throw new UsageError(`--expires is an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z, got ${JSON.stringify(text)}`);
  if (new Date(text).getTime() <= Date.now()) throw new UsageError(`--expires ${text} is in the past: the key would never work`);
  return text;
}
