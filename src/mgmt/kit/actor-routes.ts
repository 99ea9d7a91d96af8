import type { z } from 'zod';
import type { ActorEditor } from '../../actors/roles.js';
import type { AppError } from '../../domain/errors.js';
import { ENTITY, type ActorKind, type EventOf, type MultiIndexOf, type RecordOf } from '../../domain/kinds.js';
import type { PermissionRequirement } from '../../http/auth-basic.js';
import type { QueryDoc, Request, Route } from '../../http/types.js';
import type { FieldMap, SortSpec } from '../../query/index.js';
import type { Stored, Tenant } from '../../store/port.js';
import { pageSchema } from '../../apidoc/shapes.js';
import type { Access } from './access.js';
import { editActor } from './actor-edit.js';
import { loadActorByKeyOr404, loadActorOr404, type ActorKey, type Within } from './actor-store.js';
import { readBody } from './body.js';
import { command, type CommandDeps } from './commands.js';
import type { KitDeps } from './deps.js';
import { pageOf } from './hal.js';
import { listPage } from './list.js';
import { softDeletedFilter, SOFT_DELETED_MODES, type Context } from './named.js';
import { callerOf, isFull, pathId, pathText } from './request.js';

/**
 * The resource of an actor kind (rollouts, targets, actions), the counterpart of `namedRoutes` for
 * records only the actor runtime writes: `GET` the paged list (the one list engine), `GET` one,
 * `PUT` one (a field edit through the runtime, audit fields stamped here), `DELETE` one (through
 * src/actors/removal.ts or an event), and an operations table (`POST {one}/{name}` by default: an
 * event to the actor's machine through `command`, or steps of its own). The actors of one parent
 * (a target's actions) are served under the parent's path with `parent`. Creation and anything
 * particular stay routes of their own.
 */
export interface ActorResource<K extends ActorKind, V, B, U> {
  readonly kind: K;
  /** The collection, e.g. `/rest/v1/rollouts`; one actor is `${path}/:${idParam}`. */
  readonly path: string;
  /** The actors of the parent the path names (`/rest/v1/targets/:targetId/actions`); the parent's 404 comes first. */
  readonly parent?: (req: Request, tenant: Tenant) => Promise<ActorScope<NoInfer<K>>>;
  readonly idParam: string;
  /** The path names one by this unique key (a target by its controller id); default: by id. */
  readonly key?: ActorKey<K>;
  /** The actor in the OpenAPI summaries: 'rollout' gives 'List rollouts', 'Read a rollout', 'start the rollout'. */
  readonly noun: string;
  /** Summaries other than those `noun` gives (a parent's actors: "List a target's actions"). */
  readonly summaries?: { readonly list?: string; readonly read?: string };
  readonly access: Access;
  /** The JSON of records, in the order given; GET one and PUT answer `full`. */
  readonly render: (req: Request, tenant: Tenant, records: readonly RecordOf<K>[], full: boolean) => Promise<readonly Json[]>;
  /** The schema of what `render` writes for one record (the OpenAPI document's reply schemas). */
  readonly schema: z.ZodType;
  /** The OpenAPI description of the routes that answer the actor (its wire form, when the tenant's settings change it). */
  readonly description?: string;
  readonly list?: ActorListPart<NoInfer<K>, V>;
  readonly update?: ActorUpdatePart<NoInfer<K>, B, U>;
  /** Deletes the actor: through src/actors/removal.ts, or an event to its machine (a rollout's `mgmt.delete`). */
  readonly remove?: (ctx: Context, actor: Stored<RecordOf<K>>) => Promise<void>;
  /** The answer to an operation the actor's state does not take (`rollout.illegalState`). */
  readonly refused?: (operation: string, record: RecordOf<K>) => AppError;
  readonly operations?: readonly ActorOperation<NoInfer<K>>[];
}

/** The parent's actors: those it `belongs` (loads of one), those of the kind's multi index `index` at `key` (the list). */
export interface ActorScope<K extends ActorKind> extends Within<RecordOf<K>> {
  readonly index: MultiIndexOf<K>;
  readonly key: string;
}

export interface ActorListPart<K extends ActorKind, V> {
  /** The query fields, or those of the tenant (actions: by `compat.managementApi`). */
  readonly fields: FieldMap<V> | ((tenant: Tenant) => Promise<FieldMap<V>>);
  /** The views the fields read (a rollout with its set); default: the record itself. */
  readonly views?: {
    readonly join: (tenant: Tenant, records: readonly RecordOf<K>[], joins: ReadonlySet<string>) => Promise<readonly V[]>;
    readonly record: (view: V) => RecordOf<K>;
  };
  readonly defaultSort?: readonly SortSpec[];
  /** Soft-deleted actors list by `soft_deleted_mode`. */
  readonly softDeleted?: boolean;
  /** `representation=full` renders the items in full. */
  readonly representation?: boolean;
}

export interface ActorUpdatePart<K extends ActorKind, B, U> {
  readonly body: z.ZodType<B>;
  /** What `apply` takes, from the body, before the actor is loaded: checks that need no actor answer first. Default: the body. */
  readonly prepare?: (ctx: Context, body: B) => U | Promise<U>;
  /**
   * The record with the body applied (audit fields are stamped after); may refuse by throwing. It runs
   * in the runtime's edit, again on a retry, after the actor was loaded (404 first).
   */
  readonly apply: (ctx: Context, current: RecordOf<K>, input: U) => RecordOf<K> | Promise<RecordOf<K>>;
  /** Work that follows the committed edit before the answer (a rollout's regroup after its groupOrder changed). */
  readonly after?: (ctx: Context, record: RecordOf<K>, input: U) => Promise<void>;
}

/**
 * One operation on an actor, `POST {one}/{name}` unless `method` says otherwise (`name` '' is the actor
 * itself): the event to the actor's machine, a `run` of more than one step (both answer 204), or an
 * `answer`, whose actor after it is the reply (200, rendered in full).
 */
export type ActorOperation<K extends ActorKind> = {
  readonly name: string;
  readonly method?: 'POST' | 'PUT' | 'DELETE';
  readonly permission: PermissionRequirement;
  readonly query?: readonly QueryDoc[];
  /** The body the operation reads (with `readBody`), for the OpenAPI document. */
  readonly body?: z.ZodType;
  /** Default: '{name} the {noun}'. */
  readonly summary?: string;
} & (
  | { readonly event: (req: Request, by: string, at: number) => EventOf<K> }
  | { readonly run: (req: Request, ctx: Context, actor: RecordOf<K>) => Promise<void> }
  | { readonly answer: (req: Request, ctx: Context, actor: RecordOf<K>) => Promise<RecordOf<K>> }
);

type Json = object | undefined;

export type ActorRouteDeps = KitDeps & CommandDeps & { readonly runtime: ActorEditor };

export function actorRoutes<K extends ActorKind, V, B, U = B>(deps: ActorRouteDeps, spec: ActorResource<K, V, B, U>): Route[] {
  const { kind, list, update, schema } = spec;
  const label = ENTITY[kind];
  const one = `${spec.path}/:${spec.idParam}`;
  const a = `${/^[aeiou]/.test(spec.noun) ? 'an' : 'a'} ${spec.noun}`;
  const context = (req: Request): Context => {
    const { tenant, username } = callerOf(req);
    return { tenant, by: username };
  };
  const { parent, description } = spec;
  const described = description === undefined ? {} : { description };
  const load = async (req: Request, tenant: Tenant): Promise<Stored<RecordOf<K>>> => {
    if (spec.key !== undefined) return loadActorByKeyOr404(deps.store, tenant, spec.key, pathText(req, spec.idParam));
    const scope = parent === undefined ? undefined : await parent(req, tenant);
    return loadActorOr404(deps.store, tenant, kind, pathId(req, spec.idParam, label), scope);
  };
  const single = async (req: Request, tenant: Tenant, record: RecordOf<K>): Promise<object | undefined> =>
    (await spec.render(req, tenant, [record], true))[0];
  const routes: Route[] = [];
  if (list !== undefined) {
    routes.push({
      method: 'GET', path: spec.path, auth: deps.mgmtAuth(spec.access.read),
      doc: {
        summary: spec.summaries?.list ?? `List ${spec.noun}s`, list: list.representation === true ? 'full' : true, response: pageSchema(schema), ...described,
        ...(list.softDeleted === true ? { query: [{ name: 'soft_deleted_mode', values: SOFT_DELETED_MODES }] } : {}),
      },
      handler: async (req) => {
        const { tenant } = context(req);
        const visible = list.softDeleted === true ? softDeletedFilter(req) : undefined;
        const views = list.views;
        const scope = parent === undefined ? undefined : await parent(req, tenant);
        const page = await listPage<RecordOf<K>, V>(deps, tenant, req, {
          kind, fields: typeof list.fields === 'function' ? await list.fields(tenant) : list.fields,
          ...(scope === undefined ? {} : { within: { index: scope.index, key: scope.key } }),
          ...(list.defaultSort === undefined ? {} : { defaultSort: list.defaultSort }),
          ...(views === undefined ? {} : { join: (records: readonly RecordOf<K>[], joins: ReadonlySet<string>) =>
            views.join(tenant, records, joins) }),
          ...(visible === undefined ? {} : { visible: visible as (record: RecordOf<K>) => boolean }),
        });
        const record = views?.record ?? ((v: V) => v as unknown as RecordOf<K>);
        const full = list.representation === true && isFull(req);
        return { status: 200, json: pageOf(await spec.render(req, tenant, page.content.map(record), full), page.total) };
      },
    });
  }
  routes.push({
    method: 'GET', path: one, auth: deps.mgmtAuth(spec.access.read), doc: { summary: spec.summaries?.read ?? `Read ${a}`, response: schema, ...described },
    handler: async (req) => {
      const { tenant } = context(req);
      return { status: 200, json: await single(req, tenant, (await load(req, tenant)).value) };
    },
  });
  if (update !== undefined) {
    routes.push({
      method: 'PUT', path: one, auth: deps.mgmtAuth(spec.access.update),
      doc: { summary: `Update ${a}`, body: update.body, response: schema, ...described },
      handler: async (req) => {
        const ctx = context(req);
        const body: B = readBody(req, update.body);
        const input = update.prepare === undefined ? (body as unknown as U) : await update.prepare(ctx, body);
        const actor = await load(req, ctx.tenant);
        const name = spec.key?.name(actor.value) ?? actor.id;
        const next = await editActor(deps, ctx.tenant, kind, actor.id, ctx.by, (current) => update.apply(ctx, current, input), name);
        if (update.after !== undefined) await update.after(ctx, next ?? actor.value, input);
        return { status: 200, json: await single(req, ctx.tenant, next ?? actor.value) };
      },
    });
  }
  const { remove } = spec;
  if (remove !== undefined) {
    routes.push({
      method: 'DELETE', path: one, auth: deps.mgmtAuth(spec.access.delete), doc: { summary: `Delete ${a}`, response: { status: 204 } },
      handler: async (req) => {
        const ctx = context(req);
        await remove(ctx, await load(req, ctx.tenant));
        return { status: 204 };
      },
    });
  }
  const { refused } = spec;
  for (const op of spec.operations ?? []) {
    const answers = 'answer' in op;
    routes.push({
      method: op.method ?? 'POST', path: op.name === '' ? one : `${one}/${op.name}`, auth: deps.mgmtAuth(op.permission),
      doc: {
        summary: op.summary ?? `${op.name} the ${spec.noun}`, query: op.query ?? [], ...(op.body === undefined ? {} : { body: op.body }),
        ...(answers ? { response: schema, ...described } : { response: { status: 204 } }),
      },
      handler: async (req) => {
        const ctx = context(req);
        const actor = await load(req, ctx.tenant);
        if ('answer' in op) return { status: 200, json: await single(req, ctx.tenant, await op.answer(req, ctx, actor.value)) };
        if ('run' in op) {
          await op.run(req, ctx, actor.value);
        } else {
          const event = op.event(req, ctx.by, deps.now());
          await command(deps, ctx.tenant, kind, actor.id, event, refused && (() => refused(op.name, actor.value)));
        }
        return { status: 204 };
      },
    });
  }
  return routes;
}
