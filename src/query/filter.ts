/**
 * FIQL/RSQL `q=` → our own Filter union. @rsql/parser does the parsing (it is a table-driven LR parser,
 * so it does not recurse on nesting); we validate fields, operators and values against the resource's
 * FieldMap and flatten `a;b;c` into one n-ary node, so the tree depth is the logical nesting only.
 * Limits keep odd input a clean 400: q length, parenthesis depth, `=in=` list size.
 * @see reference/hawkbit-api.md section 5
 */
import { parse } from '@rsql/parser';
import { getSelector, getValue, isLogicNode, type ComparisonNode, type ExpressionNode } from '@rsql/ast';
import { AppError } from '../domain/errors.js';
import { resolveField, type FieldMap } from './fields.js';
import { show, toOperand } from './operands.js';
import type { Comparison, FieldSpec, Filter, Op, Operand } from './terms.js';

export const MAX_Q_LENGTH = 4096; // characters
export const MAX_DEPTH = 32; // nesting levels
export const MAX_LIST = 1000; // values in one =in= / =out=

const OPS: ReadonlyMap<string, Op | 'is' | 'not'> = new Map([
  ['==', '=='], ['!=', '!='], ['=lt=', '=lt='], ['<', '=lt='], ['=le=', '=le='], ['<=', '=le='], ['=gt=', '=gt='],
  ['>', '=gt='], ['=ge=', '=ge='], ['>=', '=ge='], ['=in=', '=in='], ['=out=', '=out='], ['=is=', 'is'], ['=not=', 'not'],
]);
const ORDERING: ReadonlySet<Op> = new Set(['=lt=', '=le=', '=gt=', '=ge=']);

function syntax(message: string, cause?: unknown): AppError {
  return new AppError('RSQL_SYNTAX', message, cause === undefined ? undefined : { cause });
}

/** Deepest parenthesis nesting outside quoted strings (quotes as @rsql/parser lexes them). */
function parenDepth(q: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') max = Math.max(max, ++depth);
    else if (c === ')') depth--;
  }
  return max;
}

/**
 * Parses and validates a FIQL query for one resource. Throws AppError RSQL_SYNTAX (syntax, operator,
 * value, limits) or RSQL_FIELD (unknown field, listing the valid ones).
 */
export function parseFilter<E>(q: string, fields: FieldMap<E>): Filter<E> {
  if (q.length > MAX_Q_LENGTH) throw syntax(`q must be at most ${MAX_Q_LENGTH} characters, got ${q.length}`);
  if (parenDepth(q) > MAX_DEPTH) throw syntax(`q nests parentheses deeper than ${MAX_DEPTH} levels`);
  let ast: ExpressionNode;
  try {
    ast = parse(q);
  } catch (err) {
    // the parser's message quotes the whole query; keep the position, drop the echo
    const message = err instanceof Error ? err.message.replace(` in "${q}"`, '') : String(err);
    throw syntax(`q is not well formed: ${message.slice(0, 200)}`, err);
  }
  return translate(ast, fields, 1);
}

function translate<E>(node: ExpressionNode, fields: FieldMap<E>, depth: number): Filter<E> {
  if (depth > MAX_DEPTH) throw syntax(`q nests and/or deeper than ${MAX_DEPTH} levels`);
  if (!isLogicNode(node)) return comparison(node, fields);
  const op = isLogicNode(node, ';') ? ';' : ','; // also covers the verbose `and` / `or`
  const kind = op === ';' ? 'and' : 'or';
  // collect the whole same-operator chain without recursion (a;b;c;... is left-deep in the parser's AST)
  const operands: ExpressionNode[] = [];
  const stack: ExpressionNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop() as ExpressionNode;
    if (isLogicNode(n, op)) stack.push(n.right, n.left);
    else operands.push(n);
  }
  return { kind, children: operands.map((n) => translate(n, fields, depth + 1)) };
}

function comparison<E>(node: ComparisonNode, fields: FieldMap<E>): Comparison<E> {
  const written = getSelector(node);
  const resolved = resolveField(fields, written);
  const selector = show(written);
  if (resolved === undefined) {
    throw new AppError('RSQL_FIELD', `The given search parameter field {${selector}} does not exist, must be one of the following fields [${fields.names.join(', ')}]`);
  }
  const { spec, key } = resolved;
  const mapped = OPS.get(node.operator);
  if (mapped === undefined) {
    throw syntax(`operator {${show(node.operator)}} is not supported, must be one of [${[...OPS.keys()].join(', ')}]`);
  }
  const raw = getValue(node);
  const list = Array.isArray(raw) ? raw : [raw];
  const multi = mapped === '=in=' || mapped === '=out=';
  if (!multi && Array.isArray(raw)) throw syntax(`operator ${node.operator} on field {${selector}} takes one value, got a list`);
  if (list.length > MAX_LIST) throw syntax(`operator ${node.operator} on field {${selector}} takes at most ${MAX_LIST} values, got ${list.length}`);
  const base = { kind: 'cmp' as const, field: spec, ...(key === undefined ? {} : { key }) };

  if (mapped === 'is' || mapped === 'not') {
    const v = list[0] ?? '';
    const op = mapped === 'is' ? '==' : '!=';
    // hawkBit: the literal `null` means NULL; any other value behaves as with == / !=
    return { ...base, op, values: [v.toLowerCase() === 'null' ? null : operand(spec, selector, op, v)] };
  }
  if (ORDERING.has(mapped) && (spec.kind === 'boolean' || spec.kind === 'enum')) {
    throw syntax(`operator ${node.operator} is not supported for ${spec.kind} field {${selector}}`);
  }
  return { ...base, op: mapped, values: list.map((v) => operand(spec, selector, mapped, v)) };
}

function operand<E>(spec: FieldSpec<E>, selector: string, op: Op, raw: string): Operand {
  // hawkBit: `== ''` matches null or empty, `!= ''` non-null non-empty, for any field
  if (raw === '' && (op === '==' || op === '!=')) return '';
  return toOperand(spec, selector, raw);
}
