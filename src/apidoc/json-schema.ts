/**
 * zod schemas as the JSON Schemas (draft 2020-12, OpenAPI 3.1's dialect) of the document. Request
 * bodies are shown as a client writes them (`io: 'input'`: a coercion such as the kit's `int()` shows
 * its target type, the canonical spelling); replies as the server writes them (`io: 'output'`).
 * Each schema object is converted once per document.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export class SchemaConverter {
  readonly #done = new Map<z.ZodType, JsonSchema>();
  readonly #io: 'input' | 'output';
  #hoisted = 0;
  /** Definitions zod hoisted (recursive or named schemas), to be placed in `components.schemas`. */
  readonly defs: Record<string, JsonSchema>;

  constructor(io: 'input' | 'output', defs: Record<string, JsonSchema>) {
    this.#io = io;
    this.defs = defs;
  }

  convert(schema: z.ZodType): JsonSchema {
    let out = this.#done.get(schema);
    if (out === undefined) {
      const raw = z.toJSONSchema(schema, { io: this.#io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
      out = this.#hoist(raw);
      this.#done.set(schema, out);
    }
    return out;
  }

  /**
   * Drops `$schema`, moves `$defs` to the components and points their references there. A schema
   * named with `.meta({ id })` keeps its name (one component however many replies use it); zod's
   * own names of shared pieces get a prefix unique to this conversion.
   */
  #hoist(raw: JsonSchema): JsonSchema {
    const { $schema: _dialect, $defs, ...rest } = raw;
    if ($defs === undefined) return rest;
    const prefix = `${this.#io === 'input' ? 'In' : 'Out'}${++this.#hoisted}_`;
    const rename = (name: string): string => (name.startsWith('__') ? `${prefix}${name.replace(/[^A-Za-z0-9._-]/g, '_')}` : name);
    const relink = (v: JsonSchema): JsonSchema =>
      JSON.parse(JSON.stringify(v).replace(/"#\/\$defs\/([^"]+)"/g, (_m, name: string) => `"#/components/schemas/${rename(name)}"`)) as JsonSchema;
    for (const [name, def] of Object.entries($defs as Record<string, JsonSchema>)) {
      const target = rename(name);
      const json = relink(def);
      const before = this.defs[target];
      if (before !== undefined && JSON.stringify(before) !== JSON.stringify(json)) throw new Error(`two different schemas are named ${target}`);
      this.defs[target] = json;
    }
    return relink(rest);
  }
}
