import { z } from 'zod';
import type { AppError } from '../../domain/errors.js';
import { ENTITY } from '../../domain/kinds.js';
import { parseJsonBody, validate } from '../../http/json.js';
import type { QueryDoc, Request, Route, RouteDoc } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import type { Access } from './access.js';
import type { KitDeps } from './deps.js';
import { callerOf, pathId, queryChoice } from './request.js';
import { loadOr404 } from './store.js';
import { pageSchema } from '../../apidoc/shapes.js';

/**
 * Which members (targets, distribution sets) carry a tag: `.../{tagId}/assigned` lists them and
 * takes them on or off in bulk (POST/PUT, DELETE with a body) or one by one (`.../assigned/{member}`),
 * and `.../assigned/toggleTagAssignment` (0.5-0.8) takes the tag off every listed member when all
 * carry it, else puts it on the others. Bodies of the 0.5 generation (objects: `[{"controllerId": ..}]`,
 * `[{"id": ..}]`) are accepted beside plain keys; changes answer 204, as the newest release does
 * (0.5 answered 200 with the members). Every change of one request is one atomic commit.
 * @see reference §3.2, §3.11, §10; spec 4.2
 */
export interface TaggedMembers<M, Key extends string | number> {
  /** The tag's path, e.g. `/rest/v1/targettags/:targetTagId`. */
  readonly path: string;
  readonly tagKind: 'targettag' | 'dstag';
  readonly tagParam: string;
  readonly access: Pick<Access, 'read' | 'update'>;
  /** Paths under the tag that list its members (`assigned`, and older aliases). */
  readonly listPaths: readonly string[];
  /** The page of members for `GET .../assigned` (`q`, sort and paging of the member kind). */
  list(req: Request, tenant: Tenant, tagId: number): Promise<object>;
  /** The JSON of one member as `list` and `render` write it (the OpenAPI document's reply schemas). */
  readonly memberSchema?: z.ZodType;
  /** The path parameter naming one member, and how to read it. */
  readonly memberParam: string;
  memberKey(req: Request): Key;
  /** A member key as a body gives it: plain (newer releases) or inside an object (0.5-0.9). */
  readonly key: z.ZodType<Key>;
  readonly legacyKey: z.ZodType<{ readonly [field: string]: Key }>;
  readonly legacyField: string;
  /** The members of these keys, each once, in request order; and the keys that name none. */
  find(tenant: Tenant, keys: readonly Key[]): Promise<{ found: M[]; missing: Key[] }>;
  notFound(missing: readonly Key[]): AppError;
  /** Honours `onNotFoundPolicy` (target tags); without it any unknown member fails the request first. */
  readonly policy: boolean;
  tags(member: M): readonly number[];
  /**
   * Puts the tag on (`on` true) or takes it off these members in one atomic commit; returns them
   * afterwards, in the order given. `on` may instead decide from the members as the commit reads
   * them (the toggle); it is asked again on every retry.
   */
  setTag(tenant: Tenant, members: readonly M[], tag: number, on: TagDecision<M>, by: string): Promise<readonly M[]>;
  render(req: Request, tenant: Tenant, members: readonly M[]): Promise<object[]>;
  /** The fields of the toggle's answer: members tagged, members untagged. */
  readonly toggleFields: readonly [assigned: string, unassigned: string];
}

/** Tag on (true), off (false), or decided from the members as one commit attempt reads them. */
export type TagDecision<M> = boolean | ((current: readonly M[]) => boolean);

/** Whether the tag goes on these members, as `decision` says. */
export function tagDecided<M>(decision: TagDecision<M>, current: readonly M[]): boolean {
  return typeof decision === 'boolean' ? decision : decision(current);
}

export const NOT_FOUND_POLICIES = ['FAIL', 'ON_WHAT_FOUND_AND_FAIL', 'ON_WHAT_FOUND_AND_SUCCESS'] as const;

/** The toggle's answer: the members tagged and those untagged by it. */
function toggleSchema([on, off]: readonly [string, string], member: z.ZodType) {
  return z.looseObject({ [on]: z.array(member), [off]: z.array(member) });
}

export function taggingRoutes<M, Key extends string | number>(deps: KitDeps, spec: TaggedMembers<M, Key>): Route[] {
  const read = deps.mgmtAuth(spec.access.read);
  const update = deps.mgmtAuth(spec.access.update);
  const body: z.ZodType<readonly (Key | { readonly [field: string]: Key })[]> =
    z.preprocess((v: unknown): unknown => (Array.isArray(v) ? v : [v]), z.array(z.union([spec.key, spec.legacyKey])));
  /** The keys of the body, each once (plain, or inside the 0.5 objects). */
  const readKeys = (req: Request): Key[] => {
    const items = validate(parseJsonBody(req.body), body);
    return [...new Set(items.map((x) => (typeof x === 'object' ? (x[spec.legacyField] as Key) : x)))];
  };
  const tagOf = async (req: Request): Promise<{ tenant: Tenant; by: string; tag: number }> => {
    const { tenant, username } = callerOf(req);
    const tag = (await loadOr404(deps.store, tenant, spec.tagKind, pathId(req, spec.tagParam, ENTITY[spec.tagKind]))).id;
    return { tenant, by: username, tag };
  };
  /** The members of the body; a missing one fails before any change unless the policy says otherwise. */
  const resolve = async (req: Request, tenant: Tenant, keys: readonly Key[]): Promise<{ found: M[]; failAfter: AppError | undefined }> => {
    const policy = spec.policy ? queryChoice(req, 'onNotFoundPolicy', NOT_FOUND_POLICIES, 'FAIL') : 'FAIL';
    const { found, missing } = await spec.find(tenant, keys);
    if (missing.length === 0) return { found, failAfter: undefined };
    if (policy === 'FAIL') throw spec.notFound(missing);
    return { found, failAfter: policy === 'ON_WHAT_FOUND_AND_FAIL' ? spec.notFound(missing) : undefined };
  };
  const change = (on: boolean): Route['handler'] => async (req) => {
    const { tenant, by, tag } = await tagOf(req);
    const { found, failAfter } = await resolve(req, tenant, readKeys(req));
    await spec.setTag(tenant, found, tag, on, by);
    if (failAfter !== undefined) throw failAfter;
    return { status: 204 };
  };
  const single = (on: boolean): Route['handler'] => async (req) => {
    const { tenant, by, tag } = await tagOf(req);
    const key = spec.memberKey(req);
    const { found, missing } = await spec.find(tenant, [key]);
    if (missing.length > 0) throw spec.notFound(missing);
    await spec.setTag(tenant, found, tag, on, by);
    return { status: 204 };
  };
  const assigned = `${spec.path}/assigned`;
  const policy: QueryDoc[] = spec.policy ? [{ name: 'onNotFoundPolicy', values: NOT_FOUND_POLICIES }] : [];
  const changeDoc: RouteDoc = { body, query: policy, response: { status: 204 } };
  return [
    ...spec.listPaths.map((p): Route => ({
      method: 'GET', path: `${spec.path}/${p}`, auth: read,
      doc: { list: true, ...(spec.memberSchema === undefined ? {} : { response: pageSchema(spec.memberSchema) }) },
      handler: async (req) => {
        const { tenant, tag } = await tagOf(req);
        return { status: 200, json: await spec.list(req, tenant, tag) };
      },
    })),
    { method: 'POST', path: assigned, auth: update, handler: change(true), doc: changeDoc },
    { method: 'PUT', path: assigned, auth: update, handler: change(true), doc: changeDoc },
    { method: 'DELETE', path: assigned, auth: update, body: 'json', handler: change(false), doc: changeDoc },
    { method: 'POST', path: `${assigned}/:${spec.memberParam}`, auth: update, body: 'none', handler: single(true), doc: { response: { status: 204 } } },
    { method: 'DELETE', path: `${assigned}/:${spec.memberParam}`, auth: update, handler: single(false), doc: { response: { status: 204 } } },
    {
      // hawkBit: when every listed member has the tag it is removed from all, otherwise added to those
      // without. Decided on the members as the one commit reads them, so concurrent toggles (from any
      // server instance) take effect in some serial order: the one that commits second sees the first.
      method: 'POST', path: `${assigned}/toggleTagAssignment`, auth: update,
      doc: { body, ...(spec.memberSchema === undefined ? {} : { response: toggleSchema(spec.toggleFields, spec.memberSchema) }) },
      handler: async (req) => {
        const { tenant, by, tag } = await tagOf(req);
        const { found, missing } = await spec.find(tenant, readKeys(req));
        if (missing.length > 0) throw spec.notFound(missing);
        const tagged = (m: M): boolean => spec.tags(m).includes(tag);
        let before: readonly M[] = found; // the members as the committed attempt read them
        const after = await spec.setTag(tenant, found, tag, (current) => {
          before = current;
          return !current.every(tagged);
        }, by);
        const changed = await spec.render(req, tenant, after.filter((m, i) => tagged(m) !== tagged(before[i] as M)));
        const put = !before.every(tagged);
        const [on, off] = spec.toggleFields;
        return { status: 200, json: { [on]: put ? changed : [], [off]: put ? [] : changed } };
      },
    },
  ];
}
