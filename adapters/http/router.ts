import { validationProblem } from './validation.js';

/** What the router needs of a route; the route table (routes.ts) provides more. */
export interface RoutablePath {
  method: string;
  /** OpenAPI-style template: `/workflow/{id}/runs/{rid}/result`. */
  path: string;
}

export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: readonly string[] }
  | { kind: 'not-found' };

interface Node<R> {
  staticChildren: Map<string, Node<R>>;
  parameter: { name: string; node: Node<R> } | undefined;
  routes: Map<string, R>;
  /** Names of the parameters on the way to this node, in order (the same for every route ending here). */
  parameterNames: string[];
}

const PARAMETER_SEGMENT = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * A segment trie built once. Static segments beat parameters; when a static branch leads nowhere the parameter
 * branch is tried, so a workflow may be called `list` or `runs` and still be addressed as /workflow/list/status.
 * A hit allocates only the decoded segments and the params object; 404 and 405 take a slower path.
 */
export class Router<R extends RoutablePath> {
  private readonly root: Node<R> = newNode();

  constructor(routes: readonly R[]) {
    for (const route of routes) this.add(route);
  }

  /**
   * `path` is the raw request path (no query). Segments are percent-decoded after splitting, so `%2F` stays inside
   * a segment. Throws a ValidationError for malformed percent-encoding.
   */
  match(method: string, path: string): RouteMatch<R> {
    const segments = splitPath(path);
    if (segments === undefined) return { kind: 'not-found' };
    const values: string[] = [];
    const hit = this.find(this.root, segments, 0, values, method);
    if (hit) return { kind: 'found', route: hit.routes.get(method)!, params: bindParameters(hit.parameterNames, values) };
    const others: R[] = [];
    this.collectRoutes(this.root, segments, 0, others);
    if (others.length === 0) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allow: [...new Set(others.map((route) => route.method))].sort() };
  }

  private add(route: R): void {
    let node = this.root;
    const parameterNames: string[] = [];
    for (const segment of route.path.split('/').slice(1)) {
      const parameter = PARAMETER_SEGMENT.exec(segment)?.[1];
      if (parameter === undefined) {
        let child = node.staticChildren.get(segment);
        if (!child) node.staticChildren.set(segment, (child = newNode()));
        node = child;
      } else {
        if (node.parameter && node.parameter.name !== parameter) {
          throw new Error(`Route ${route.path}: parameter {${parameter}} conflicts with {${node.parameter.name}}`);
        }
        node.parameter ??= { name: parameter, node: newNode() };
        parameterNames.push(parameter);
        node = node.parameter.node;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`Duplicate route ${route.method} ${route.path}`);
    node.routes.set(route.method, route);
    node.parameterNames = parameterNames;
  }

  /** Depth-first, static before parameter; `values` holds the parameter values of the path that matched. */
  private find(node: Node<R>, segments: readonly string[], index: number, values: string[], method: string): Node<R> | undefined {
    if (index === segments.length) return node.routes.has(method) ? node : undefined;
    const segment = segments[index]!;
    const staticChild = node.staticChildren.get(segment);
    if (staticChild) {
      const hit = this.find(staticChild, segments, index + 1, values, method);
      if (hit) return hit;
    }
    if (!node.parameter) return undefined;
    values.push(segment);
    const hit = this.find(node.parameter.node, segments, index + 1, values, method);
    if (!hit) values.pop();
    return hit;
  }

  /** Every route whose path matches, whatever its method. */
  private collectRoutes(node: Node<R>, segments: readonly string[], index: number, out: R[]): void {
    if (index === segments.length) {
      out.push(...node.routes.values());
      return;
    }
    const segment = segments[index]!;
    const staticChild = node.staticChildren.get(segment);
    if (staticChild) this.collectRoutes(staticChild, segments, index + 1, out);
    if (node.parameter) this.collectRoutes(node.parameter.node, segments, index + 1, out);
  }
}

function newNode<R>(): Node<R> {
  return { staticChildren: new Map(), parameter: undefined, routes: new Map(), parameterNames: [] };
}

/** Splits then decodes; `undefined` for a path that is not origin-form. Malformed escapes are a client error. */
export function splitPath(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments = path.slice(1).split('/');
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (!segment.includes('%')) continue;
    try {
      segments[index] = decodeURIComponent(segment);
    } catch {
      throw validationProblem(`Malformed percent-encoding in path segment ${index + 1}`, 'invalid_path_encoding', ['path']);
    }
  }
  return segments;
}

function bindParameters(names: readonly string[], values: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let index = 0; index < names.length; index++) params[names[index]!] = values[index]!;
  return params;
}
