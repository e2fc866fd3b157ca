import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Relative imports that bring values (not `import type`, not a clause of type-only names), per source file. */
export function valueImportGraph(root: string, directories: readonly string[]): Map<string, string[]> {
  const files = directories.flatMap((directory) => sourceFiles(join(root, directory)));
  const graph = new Map<string, string[]>();
  const statement = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]*)['"]/g;
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(statement)) {
      if (match[1] || isTypeOnlyClause(match[2]!)) continue;
      const target = resolveSource(dirname(file), match[3]!);
      if (target) targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The strongly connected groups of more than one file: each is an import circle (Tarjan's algorithm). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, order.get(target)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return circles;
}

function isTypeOnlyClause(clause: string): boolean {
  const names = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!names) return false;
  const items = names[1]!.split(',').map((item) => item.trim()).filter(Boolean);
  return items.length > 0 && items.every((item) => item.startsWith('type '));
}

function resolveSource(directory: string, specifier: string): string | undefined {
  const base = resolve(directory, specifier);
  return [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(path);
    return /\.m?ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}
