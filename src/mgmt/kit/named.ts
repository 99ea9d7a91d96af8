import { z } from 'zod';
import { created, touched, type Audit } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { ENTITY, type PlainKind, type PlainTypes } from '../../domain/kinds.js';
import type { Request, Route } from '../../http/types.js';
import type { FieldMap } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { pageSchema } from '../../apidoc/shapes.js';
import type { Access } from './access.js';
import { colour, description, given, many, name, readBody } from './body.js';
import type { KitDeps } from './deps.js';
import { pageOf } from './hal.js';
import { listPage } from './list.js';
import { callerOf, isFull, pathId, queryChoice } from './request.js';
import { createRecords, deleteRecord, loadOr404, updateRecord, type SoftDeletable } from './store.js';

/**
 * The resource of a family of named entities (tags, types, target filters; rollouts take the same
 * pieces): `GET` the paged list (FIQL, sort, paging), `POST` one or several (all or none), and
 * `GET` / `PUT` / `DELETE` one by id. Each part is declared; what a resource leaves out it does
 * not serve, and anything particular stays a route of its own beside these.
 */
export interface NamedResource<K extends PlainKind, V, I, U> {
  readonly kind: K;
  /** The collection, e.g. `/rest/v1/targettags`; one entity is `${path}/:${idParam}`. */
  readonly path: string;
  readonly idParam: string;
  readonly access: Access;
  /**
   * The JSON of records, in the order given (`jsonOf` for a renderer of one record). Single-entity
   * answers (GET one, PUT) are `full`; list and create answers compact.
   */
  readonly render: (req: Request, tenant: Tenant, records: readonly PlainTypes[K][], full: boolean) => Promise<readonly object[]>;
  /** The schema of what `render` writes for one record (the OpenAPI document's reply schemas). */
  readonly schema?: z.ZodType;
  readonly list?: ListPart<NoInfer<K>, V>;
  readonly create?: CreatePart<NoInfer<K>, I>;
  readonly update?: UpdatePart<NoInfer<K>, U>;
  /** Deletes the entity (soft delete, refusal when in use, cleanup first); default: removes the record. */
  readonly remove?: (ctx: Context, record: PlainTypes[K]) => Promise<void>;
}

/** What the parts of a request get besides their input. */
export interface Context {
  readonly tenant: Tenant;
  /** The caller's user name, for audit fields. */
  readonly by: string;
}

export interface ListPart<K extends PlainKind, V> {
  readonly fields: FieldMap<V>;
  /** The views the fields read (a tag with its sets); default: the record itself. */
  readonly views?: {
    readonly join: (tenant: Tenant, records: readonly PlainTypes[K][], joins: ReadonlySet<string>) => Promise<readonly V[]>;
    readonly record: (view: V) => PlainTypes[K];
  };
  /** Soft-deletable kinds list by `soft_deleted_mode`; others may hide records always. */
  readonly softDeleted?: boolean;
  readonly visible?: (record: PlainTypes[K]) => boolean;
  /** `representation=full` renders the items in full. */
  readonly representation?: boolean;
}

export interface CreatePart<K extends PlainKind, I> {
  readonly item: z.ZodType<I>;
  /** The body is one item, answered in full (target filters, rollouts); default: a list, answered compact. */
  readonly single?: boolean;
  /** Item fields whose values (ignoring case) must differ within one request: 409 naming the value. */
  readonly unique?: readonly (keyof I & string)[];
  /**
   * The record of each item, given its id and audit fields. Checks and lookups happen here, before
   * anything is written; throwing refuses the whole request.
   */
  readonly build: (ctx: Context, items: readonly I[]) => Promise<readonly ((id: number, audit: Audit) => PlainTypes[K])[]>;
}

export interface UpdatePart<K extends PlainKind, U> {
  readonly body: z.ZodType<U>;
  /** The record with the body applied (audit fields are set after); may refuse by throwing. */
  readonly apply: (ctx: Context, current: PlainTypes[K], body: U) => PlainTypes[K] | Promise<PlainTypes[K]>;
}

/** A renderer of many records from one of a single record. */
export function jsonOf<T>(json: (req: Request, record: T, full: boolean) => object) {
  return async (req: Request, _tenant: Tenant, records: readonly T[], full: boolean): Promise<readonly object[]> =>
    records.map((r) => json(req, r, full));
}

interface Look {
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
}
const lookBody = z.object({ name: name.nullish(), description, colour });

/**
 * The PUT of tags and types: description and colour, and the name where hawkBit lets it change
 * (`renamable`); what the body leaves out or sends as null stays.
 */
export function lookUpdate(renamable: boolean) {
  return {
    body: lookBody,
    apply: <T extends Look>(_ctx: Context, t: T, body: z.output<typeof lookBody>): T => ({
      ...t,
      name: renamable ? (body.name ?? t.name) : t.name,
      description: given(body.description) ? body.description : t.description,
      colour: given(body.colour) ? body.colour : t.colour,
    }),
  };
}

export type SoftDeletedMode = 'EXCLUDE_SOFT_DELETED' | 'ONLY_SOFT_DELETED' | 'INCLUDE_SOFT_DELETED';
export const SOFT_DELETED_MODES: readonly SoftDeletedMode[] = ['EXCLUDE_SOFT_DELETED', 'ONLY_SOFT_DELETED', 'INCLUDE_SOFT_DELETED'];

/** `soft_deleted_mode` (reference §3.0): soft-deleted entities are hidden unless asked for. */
export function softDeletedFilter(req: Request): (e: { readonly deleted: boolean }) => boolean {
  const mode = queryChoice(req, 'soft_deleted_mode', SOFT_DELETED_MODES, 'EXCLUDE_SOFT_DELETED');
  switch (mode) {
    case 'EXCLUDE_SOFT_DELETED':
      return (e) => !e.deleted;
    case 'ONLY_SOFT_DELETED':
      return (e) => e.deleted;
    case 'INCLUDE_SOFT_DELETED':
      return () => true;
  }
}

export function namedRoutes<K extends PlainKind, V, I, U>(deps: KitDeps, spec: NamedResource<K, V, I, U>): Route[] {
  const label = ENTITY[spec.kind];
  const one = `${spec.path}/:${spec.idParam}`;
  const context = (req: Request): Context => {
    const { tenant, username } = callerOf(req);
    return { tenant, by: username };
  };
  const idOf = (req: Request): number => pathId(req, spec.idParam, label);
  const routes: Route[] = [];
  const { list, create, update, schema } = spec;
  const reply = (status: number, of?: z.ZodType) => (of === undefined ? undefined : { status, schema: of });
  if (list !== undefined) {
    routes.push({
      method: 'GET', path: spec.path, auth: deps.mgmtAuth(spec.access.read),
      doc: {
        list: list.representation === true ? 'full' : true, response: reply(200, schema && pageSchema(schema)),
        ...(list.softDeleted === true ? { query: [{ name: 'soft_deleted_mode', values: SOFT_DELETED_MODES }] } : {}),
      },
      handler: async (req) => {
        const { tenant } = context(req);
        const visible = list.softDeleted === true ? softDeletedFilter(req) : list.visible;
        const views = list.views;
        const page = await listPage<PlainTypes[K], V>(deps, tenant, req, {
          kind: spec.kind,
          fields: list.fields,
          ...(views === undefined
            ? {}
            : { join: (records: readonly PlainTypes[K][], joins: ReadonlySet<string>) => views.join(tenant, records, joins) }),
          ...(visible === undefined ? {} : { visible: visible as (record: PlainTypes[K]) => boolean }),
        });
        const full = list.representation === true && isFull(req);
        const record = views?.record ?? ((v: V) => v as unknown as PlainTypes[K]);
        return { status: 200, json: pageOf(await spec.render(req, tenant, page.content.map(record), full), page.total) };
      },
    });
  }
  if (create !== undefined) {
    const body = create.single === true ? create.item : many(create.item);
    routes.push({
      method: 'POST', path: spec.path, auth: deps.mgmtAuth(spec.access.create),
      doc: { body, response: reply(201, schema && (create.single === true ? schema : z.array(schema))) },
      handler: async (req) => {
        const ctx = context(req);
        const read: I | I[] = readBody(req, body);
        const items = create.single === true ? [read as I] : (read as I[]);
        for (const field of create.unique ?? []) {
          const values = items.map((i) => i[field]).filter((v) => typeof v === 'string').map((v) => v.toLowerCase());
          const twice = values.find((v, i) => values.indexOf(v) !== i);
          if (twice !== undefined) throw new AppError('ALREADY_EXISTS', `${label} with ${field} {${twice}} is given twice in the request`);
        }
        const builders = await create.build(ctx, items);
        const audit = created(ctx.by, deps.now());
        const build = (id: number, i: number) => (builders[i] as (typeof builders)[number])(id, audit);
        const records = await createRecords(deps.store, ctx.tenant, spec.kind, builders.length, build);
        const json = await spec.render(req, ctx.tenant, records, create.single === true);
        return { status: 201, json: create.single === true ? json[0] : json };
      },
    });
  }
  const single = async (req: Request, tenant: Tenant, record: PlainTypes[K]): Promise<object | undefined> =>
    (await spec.render(req, tenant, [record], true))[0];
  routes.push({
    method: 'GET', path: one, auth: deps.mgmtAuth(spec.access.read), doc: { response: reply(200, schema) },
    handler: async (req) => {
      const { tenant } = context(req);
      return { status: 200, json: await single(req, tenant, (await loadOr404(deps.store, tenant, spec.kind, idOf(req))).value) };
    },
  });
  if (update !== undefined) {
    routes.push({
      method: 'PUT', path: one, auth: deps.mgmtAuth(spec.access.update), doc: { body: update.body, response: reply(200, schema) },
      handler: async (req) => {
        const ctx = context(req);
        const body: U = readBody(req, update.body);
        const next = await updateRecord(deps.store, ctx.tenant, spec.kind, idOf(req), async (current) =>
          touched(await update.apply(ctx, current, body), ctx.by, deps.now()));
        return { status: 200, json: await single(req, ctx.tenant, next) };
      },
    });
  }
  routes.push({
    method: 'DELETE', path: one, auth: deps.mgmtAuth(spec.access.delete), doc: { response: { status: 204 } },
    handler: async (req) => {
      const ctx = context(req);
      const id = idOf(req);
      if (spec.remove === undefined) await deleteRecord(deps.store, ctx.tenant, spec.kind, id);
      else await spec.remove(ctx, (await loadOr404(deps.store, ctx.tenant, spec.kind, id)).value);
      return { status: 204 };
    },
  });
  return routes;
}

/** A soft-deletable entity still in use keeps its record as `deleted: true`; one nothing uses goes. */
export async function softDelete<K extends SoftDeletable>(
  deps: Pick<KitDeps, 'store' | 'now'>, ctx: Context, kind: K, id: number, inUse: boolean,
): Promise<void> {
  if (!inUse) {
    await deleteRecord(deps.store, ctx.tenant, kind, id);
    return;
  }
  await updateRecord(deps.store, ctx.tenant, kind, id, (r) => (r.deleted ? r : touched({ ...r, deleted: true }, ctx.by, deps.now())));
}
