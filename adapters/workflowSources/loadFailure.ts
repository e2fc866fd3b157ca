/** One message of the TypeScript compiler (esbuild, run by tsx) with where it points. */
export interface CompilerMessage {
  file: string;
  line: number;
  /** 1-based, as editors and tsc count. */
  column: number;
  text: string;
}

/**
 * Why a module of the project does not load, in one line: the compiler's first message with its file, line and
 * column, else the error's own first line.
 */
export function describeLoadFailure(error: unknown): string {
  const compiler = compilerMessageLine(error);
  if (compiler) return compiler;
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // The first line only: a stack or a code frame belongs to the cause, which the error keeps for whoever wants it.
  return reason.split('\n')[0]!;
}

/** `file:line:column: message` of the compiler's first message (and how many more there are), if it is one. */
export function compilerMessageLine(error: unknown): string | undefined {
  const messages = compilerMessages(error);
  const first = messages[0];
  if (!first) return undefined;
  const more = messages.length > 1 ? ` (and ${messages.length - 1} more)` : '';
  return `${first.file}:${first.line}:${first.column}: ${first.text}${more}`;
}

/**
 * esbuild's messages: from its `errors` array when the error comes straight from esbuild, else from its message
 * (`Transform failed with 1 error:\n/x/bad.ts:3:18: ERROR: Unexpected ";"`), which is all that is left of the error
 * when it crosses from Node's module hooks thread, where tsx compiles. esbuild counts columns from 0.
 */
export function compilerMessages(error: unknown): CompilerMessage[] {
  if (!(error instanceof Error)) return [];
  const structured = (error as { errors?: unknown }).errors;
  if (Array.isArray(structured) && structured.length > 0) {
    const found = structured.flatMap((message: EsbuildMessage) =>
      message?.location ? [{ file: message.location.file, line: message.location.line, column: message.location.column + 1, text: message.text }] : [],
    );
    if (found.length === structured.length) return found;
  }
  if (!/^(Transform|Build) failed with \d+ errors?:/.test(error.message)) return [];
  return [...error.message.matchAll(/^(.+?):(\d+):(\d+): ERROR: (.+)$/gm)].map((match) => ({
    file: match[1]!,
    line: Number(match[2]),
    column: Number(match[3]) + 1,
    text: match[4]!,
  }));
}

interface EsbuildMessage {
  text: string;
  location?: { file: string; line: number; column: number } | null;
}
