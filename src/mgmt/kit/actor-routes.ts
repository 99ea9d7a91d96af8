import type { z } from 'zod';
import type { ActorEditor } from '../../actors/roles.js';
import type { AppError } from '../../domain/errors.js';
import { ENTITY, type ActorKind, type EventOf, type RecordOf } from '../../domain/kinds.js';
import type { PermissionRequirement } from '../../http/auth-basic.js';
import type { QueryDoc, Request, Route } from '../../http/types.js';
import type { FieldMap, SortSpec } from '../../query/index.js';
import type { Stored, Tenant } from '../../store/port.js';
import { pageSchema } from '../../apidoc/shapes.js';
import type { Access } from './access.js';
import { editActor } from './actor-edit.js';
import { loadActorByKeyOr404, loadActorOr404, type ActorKey } from './actor-store.js';
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
 * src/actors/removal.ts or an event), and an operations table (`POST {one}/{name}`: an event to the
 * actor's machine through `command`). Creation and anything particular stay routes of their own.
 */
export interface ActorResource<K extends ActorKind, V, B, U> {
  readonly kind: K;
  /** The collection, e.g. `/rest/v1/rollouts`; one actor is `${path}/:${idParam}`. */
  readonly path: string;
  readonly idParam: string;
  /** The path names one by this unique key (a target by its controller id); default: by id. */
  readonly key?: ActorKey<K>;
  /** The actor in the OpenAPI summaries: 'rollout' gives 'List rollouts', 'Read a rollout', 'start the rollout'. */
  readonly noun: string;
  readonly access: Access;
  /** The JSON of records, in the order given; GET one and PUT answer `full`. */
  readonly render: (req: Request, tenant: Tenant, records: readonly RecordOf<K>[], full: boolean) => Promise<readonly Json[]>;
  /** The schema of what `render` writes for one record (the OpenAPI document's reply schemas). */
  readonly schema: z.ZodType;
  readonly list?: ActorListPart<NoInfer<K>, V>;
  readonly update?: ActorUpdatePart<NoInfer<K>, B, U>;
  /** Deletes the actor: through src/actors/removal.ts, or an event to its machine (a rollout's `mgmt.delete`). */
  readonly remove?: (ctx: Context, actor: Stored<RecordOf<K>>) => Promise<void>;
  /** The answer to an operation the actor's state does not take (`rollout.illegalState`). */
  readonly refused?: (operation: string, record: RecordOf<K>) => AppError;
  readonly operations?: readonly ActorOperation<NoInfer<K>>[];
}

export interface ActorListPart<K extends ActorKind, V> {
  readonly fields: FieldMap<V>;
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
}

/** One `POST {one}/{name}`: the event to the actor's machine, or a `run` of more than one step. */
export type ActorOperation<K extends ActorKind> = {
  readonly name: string;
  readonly permission: PermissionRequirement;
  readonly query?: readonly QueryDoc[];
  /** Default: '{name} the {noun}'. */
  readonly summary?: string;
} & (
  | { readonly event: (req: Request, by: string, at: number) => EventOf<K> }
  | { readonly run: (req: Request, ctx: Context, actor: RecordOf<K>) => Promise<void> }
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
  const load = (req: Request, tenant: Tenant): Promise<Stored<RecordOf<K>>> =>
    (spec.key === undefined
      ? loadActorOr404(deps.store, tenant, kind, pathId(req, spec.idParam, label))
      : loadActorByKeyOr404(deps.store, tenant, spec.key, pathText(req, spec.idParam)));
  const single = async (req: Request, tenant: Tenant, record: RecordOf<K>): Promise<object | undefined> =>
    (await spec.render(req, tenant, [record], true))[0];
  const routes: Route[] = [];
  if (list !== undefined) {
    routes.push({
      method: 'GET', path: spec.path, auth: deps.mgmtAuth(spec.access.read),
      doc: {
        summary: `List ${spec.noun}s`, list: list.representation === true ? 'full' : true, response: pageSchema(schema),
        ...(list.softDeleted === true ? { query: [{ name: 'soft_deleted_mode', values: SOFT_DELETED_MODES }] } : {}),
      },
      handler: async (req) => {
        const { tenant } = context(req);
        const visible = list.softDeleted === true ? softDeletedFilter(req) : undefined;
        const views = list.views;
        const page = await listPage<RecordOf<K>, V>(deps, tenant, req, {
          kind, fields: list.fields,
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
    method: 'GET', path: one, auth: deps.mgmtAuth(spec.access.read), doc: { summary: `Read ${a}`, response: schema },
    handler: async (req) => {
      const { tenant } = context(req);
      return { status: 200, json: await single(req, tenant, (await load(req, tenant)).value) };
    },
  });
  if (update !== undefined) {
    routes.push({
      method: 'PUT', path: one, auth: deps.mgmtAuth(spec.access.update), doc: { summary: `Update ${a}`, body: update.body, response: schema },
      handler: async (req) => {
        const ctx = context(req);
        const body: B = readBody(req, update.body);
        const input = update.prepare === undefined ? (body as unknown as U) : await update.prepare(ctx, body);
        const actor = await load(req, ctx.tenant);
        const name = spec.key?.name(actor.value) ?? actor.id;
        const next = await editActor(deps, ctx.tenant, kind, actor.id, ctx.by, (current) => update.apply(ctx, current, input), name);
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
    routes.push({
      method: 'POST', path: `${one}/${op.name}`, auth: deps.mgmtAuth(op.permission),
      doc: { summary: op.summary ?? `${op.name} the ${spec.noun}`, query: op.query ?? [], response: { status: 204 } },
      handler: async (req) => {
        const ctx = context(req);
        const actor = await load(req, ctx.tenant);
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
