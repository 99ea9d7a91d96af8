import type { Services } from '../../app/services.js';
import { AppError } from '../../domain/errors.js';
import type { TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import type { Request } from '../../http/types.js';
import { parseListParams, type EvalContext } from '../../query/index.js';
import { pageOf } from '../kit/hal.js';
import { DEFAULT_TARGET_SORT, targetFields } from './target-fields.js';
import { targetJson, type TargetRenderContext } from './target-json.js';
import { loadMap, queryTargets } from './target-query.js';
import { maySeeTokens } from './request.js';

/**
 * The shared target renderers other resources use (rollout group targets, DS assigned targets, tag
 * assignments). @see reference §3.1
 */

/** Target JSON for each record, with poll status, type name and (when `full`) all links. */
export async function renderTargets(
  services: Services, tenant: string, req: Request, targets: readonly TargetRecord[], opts: { full?: boolean } = {},
): Promise<object[]> {
  if (targets.length === 0) return [];
  const store = services.ctx.store;
  const [polls, types, rc] = await Promise.all([
    store.getPolls(tenant, targets.map((t) => t.id)),
    loadMap<TargetTypeRecord>(store, tenant, TARGET_TYPE, targets.map((t) => t.targetType)),
    renderContext(services, tenant, req),
  ]);
  return targets.map((t, i) => targetJson(t, polls[i], t.targetType === null ? undefined : types.get(t.targetType)?.name, rc, opts.full === true));
}

export async function renderContext(services: Services, tenant: string, req: Request): Promise<TargetRenderContext> {
  const cfg = await services.tenantConfig.view(tenant);
  return {
    req,
    now: services.now(),
    pollingMs: cfg.durationMs('pollingTime'),
    overdueMs: cfg.durationMs('pollingOverdueTime'),
    confirmationFlow: cfg.bool('user.confirmation.flow.enabled'),
    showToken: maySeeTokens(req),
  };
}

/** `${NOW_TS}` and `${OVERDUE_TS}` (now - pollingTime - pollingOverdueTime) for target queries. */
export async function evalContext(services: Services, tenant: string): Promise<EvalContext> {
  const cfg = await services.tenantConfig.view(tenant);
  const now = services.now();
  return { now, overdueTs: now - cfg.durationMs('pollingTime') - cfg.durationMs('pollingOverdueTime') };
}

/**
 * A page of targets for a Management list endpoint: `offset`, `limit`, `sort` and `q` from the
 * request (Target fields of reference §5, default sort controllerId:ASC). `params.q` is ANDed with
 * the request's `q`; `within` restricts to one key of a target multi index (`tag`, `assignedDs`,
 * `installedDs`, `targetType`, `updateStatus`).
 */
export async function listTargets(
  services: Services, tenant: string, req: Request, params: { q?: string; within?: { index: string; key: string } },
): Promise<{ content: object[]; total: number; size: number }> {
  const given = req.query.getAll('q');
  if (given.length > 1) throw new AppError('BAD_PARAMETER', `q must be given at most once, got ${given.length} values`);
  const parts = [params.q, given[0]].filter((s): s is string => s !== undefined && s !== '');
  const query = new URLSearchParams(req.query);
  query.delete('q');
  if (parts.length > 0) query.set('q', parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(${p})`).join(';'));
  const { limits } = services.ctx.config;
  const list = parseListParams(query, {
    defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize,
    sortFields: targetFields, filterFields: targetFields, defaultSort: DEFAULT_TARGET_SORT,
  });
  const ctx = await evalContext(services, tenant);
  const result = await queryTargets(services.ctx.store, tenant, { ...list, within: params.within }, ctx);
  const content = await renderTargets(services, tenant, req, result.content);
  return pageOf(content, result.total) as { content: object[]; total: number; size: number };
}
