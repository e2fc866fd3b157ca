// Types for buildUi.mjs, so the TypeScript tests and benchmarks can build the UI.
export const DEFAULT_UI_OUT_DIR: string;
export function buildUi(options?: { outDir?: string }): Promise<{ outDir: string; files: { name: string; bytes: number }[] }>;
