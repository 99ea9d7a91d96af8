/**
 * A segment trie: `/rest/v1/targets/:targetId`. At each level a static segment beats a parameter,
 * with backtracking, so `/targets/tags` and `/targets/:id` coexist. A path that matches no pattern
 * is a 404; one that matches with another method is a 405 carrying `Allow`. HEAD falls back to GET.
 * Parameters are percent-decoded; values that could smuggle a path (`/`, a `..` segment, NUL) or
 * are not valid percent-encoding are refused with a message naming the parameter.
 */
import type { Route } from './types.js';

export interface RouteEntry {
  readonly route: Route;
  readonly method: string;
  /** Metrics label: the route's name or its path pattern. */
  readonly name: string;
  /** Parameter names in path order. */
  readonly paramNames: readonly string[];
}

export type Match =
  | { readonly kind: 'found'; readonly entry: RouteEntry; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed'; readonly allow: string }
  | { readonly kind: 'bad-param'; readonly name: string; readonly problem: string };

interface Node {
  readonly statics: Map<string, Node>;
  param: Node | undefined;
  methods: Map<string, RouteEntry> | undefined;
}

const NOT_FOUND: Match = Object.freeze({ kind: 'not-found' });
const EMPTY_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function newNode(): Node {
  return { statics: new Map(), param: undefined, methods: undefined };
}

function segmentsOf(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}

export class Router {
  readonly #root: Node = newNode();

  add(route: Route): RouteEntry {
    if (!route.path.startsWith('/')) throw new Error(`route path must start with '/': ${route.path}`);
    let node = this.#root;
    const paramNames: string[] = [];
    const segments = segmentsOf(route.path);
    for (const [at, segment] of segments.entries()) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad parameter name in ${route.path}`);
        if (paramNames.includes(name)) throw new Error(`duplicate parameter :${name} in ${route.path}`);
        paramNames.push(name);
        node.param ??= newNode();
        node = node.param;
      } else {
        // a trailing slash (`/ui/`) is a route of its own; an empty segment elsewhere is a mistake
        if (segment === '' && at !== segments.length - 1) throw new Error(`empty segment in ${route.path}`);
        let next = node.statics.get(segment);
        if (next === undefined) {
          next = newNode();
          node.statics.set(segment, next);
        }
        node = next;
      }
    }
    node.methods ??= new Map();
    if (node.methods.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    const entry: RouteEntry = { route, method: route.method, name: route.name ?? route.path, paramNames };
    node.methods.set(route.method, entry);
    return entry;
  }

  match(method: string, path: string): Match {
    if (path.charCodeAt(0) !== 47 /* / */) return NOT_FOUND;
    const segments = segmentsOf(path);
    const values: string[] = [];
    const state: Search = { method, fallback: method === 'HEAD' ? 'GET' : undefined, firstTerminal: undefined, found: undefined };
    if (!search(this.#root, segments, 0, values, state) || state.found === undefined) {
      return state.firstTerminal === undefined ? NOT_FOUND : { kind: 'method-not-allowed', allow: allowOf(state.firstTerminal) };
    }
    const entry = state.found;
    if (entry.paramNames.length === 0) return { kind: 'found', entry, params: EMPTY_PARAMS };
    const params: Record<string, string> = {};
    for (let i = 0; i < entry.paramNames.length; i++) {
      const name = entry.paramNames[i] as string;
      const decoded = decodeParam(values[i] as string);
      if (typeof decoded !== 'string') return { kind: 'bad-param', name, problem: decoded.problem };
      params[name] = decoded;
    }
    return { kind: 'found', entry, params };
  }
}

interface Search {
  readonly method: string;
  readonly fallback: string | undefined;
  firstTerminal: Map<string, RouteEntry> | undefined;
  found: RouteEntry | undefined;
}

function search(node: Node, segments: readonly string[], i: number, values: string[], state: Search): boolean {
  if (i === segments.length) {
    if (node.methods === undefined) return false;
    const entry = node.methods.get(state.method) ?? (state.fallback === undefined ? undefined : node.methods.get(state.fallback));
    state.firstTerminal ??= node.methods;
    if (entry === undefined) return false;
    state.found = entry;
    return true;
  }
  const segment = segments[i] as string;
  const next = node.statics.get(segment);
  if (next !== undefined && search(next, segments, i + 1, values, state)) return true;
  if (node.param !== undefined && segment !== '') {
    values.push(segment);
    if (search(node.param, segments, i + 1, values, state)) return true;
    values.pop();
  }
  return false;
}

function allowOf(methods: Map<string, RouteEntry>): string {
  const names = [...methods.keys()];
  if (methods.has('GET') && !methods.has('HEAD')) names.push('HEAD');
  return names.join(', ');
}

// the WTF-8 bytes of one UTF-16 surrogate (U+D800..U+DFFF), as `segment()` writes them
const SURROGATE_BYTES = /%ED%[AB][0-9A-F]%[89AB][0-9A-F]/gi;

/** decodeURIComponent, except that a surrogate's WTF-8 bytes decode to that surrogate (see links.ts). */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch (err) {
    if (!SURROGATE_BYTES.test(raw)) throw err;
    SURROGATE_BYTES.lastIndex = 0;
    let out = '';
    let at = 0;
    for (const m of raw.matchAll(SURROGATE_BYTES)) {
      const b = (i: number): number => parseInt(m[0].slice(i * 3 + 1, i * 3 + 3), 16);
      out += decodeURIComponent(raw.slice(at, m.index)) + String.fromCharCode(((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f));
      at = m.index + m[0].length;
    }
    return out + decodeURIComponent(raw.slice(at));
  }
}

function decodeParam(raw: string): string | { problem: string } {
  let value = raw;
  if (raw.includes('%')) {
    try {
      value = decodeSegment(raw);
    } catch {
      return { problem: 'is not valid percent-encoding' };
    }
    if (value.includes('/')) return { problem: "must not contain '/'" };
    if (value.includes('\0')) return { problem: 'must not contain NUL' };
  }
  if (value === '..' || value === '.') return { problem: `must not be '${value}'` };
  return value;
}
