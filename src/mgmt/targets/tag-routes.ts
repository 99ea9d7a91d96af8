import { z } from 'zod';
import { edited } from '../../actors/outcomes.js';
import type { ActorEditor } from '../../actors/roles.js';
import type { TARGET_TAG, TagRecord } from '../../domain/repository.js';
import { TARGET } from '../../domain/target.js';
import type { Route } from '../../http/types.js';
import { defineFields } from '../../query/index.js';
import { ACCESS } from '../kit/access.js';
import { editActors } from '../kit/actor-edit.js';
import type { KitDeps } from '../kit/deps.js';
import { str } from '../kit/body.js';
import { pathText } from '../kit/request.js';
import { tagDecided } from '../kit/tag-members.js';
import { tagFields, tagJson, tagRoutes } from '../kit/tag-kinds.js';
import { listTargets, renderTargets } from './target-json.js';
import { findTargets, targetsNotFound } from './target-store.js';
import { targetResponse } from './responses.js';

export interface TargetTagDeps extends KitDeps {
  readonly runtime: ActorEditor;
}

const PATH = '/rest/v1/targettags';
const controllerId = str(z.string().min(1).max(256));

/** TargetTagFields (reference §5). */
const fields = defineFields<TagRecord, typeof TARGET_TAG>({ resource: 'targettag', id: (t) => t.id, fields: tagFields((t: TagRecord) => t) });

/** A target's tags as `GET /targets/{id}/tags` lists them. */
export const targetTagJson = tagJson(PATH, 'assignedTargets');

/**
 * `/rest/v1/targettags` and the targets of a tag; 0.5 assignment bodies (`[{"controllerId"}]`) and
 * the toggle per spec 4.2, `onNotFoundPolicy` per reference §3.2.
 */
export function targetTagRoutes(deps: TargetTagDeps): Route[] {
  return tagRoutes(deps, {
    kind: 'targettag',
    path: PATH,
    idParam: 'targetTagId',
    access: ACCESS.target,
    membersRel: 'assignedTargets',
    list: { fields },
    memberKind: TARGET,
    members: {
      listPaths: ['assigned'],
      list: (req, tenant, tag) => listTargets(deps, tenant, req, { index: 'tag', key: String(tag) }),
      memberSchema: targetResponse,
      memberParam: 'controllerId',
      memberKey: (req) => pathText(req, 'controllerId'),
      key: controllerId,
      legacyKey: z.object({ controllerId }),
      legacyField: 'controllerId',
      find: (tenant, keys) => findTargets(deps.store, tenant, keys),
      notFound: targetsNotFound,
      policy: true,
      tags: (t) => t.tags,
      setTag: async (tenant, targets, tag, on, by) => {
        if (targets.length === 0) return [];
        return edited(await editActors(deps, tenant, TARGET, targets.map((t) => t.id), by, (current) => {
          const put = tagDecided(on, current);
          return current.map((t) => (t.tags.includes(tag) === put ? t
            : { ...t, tags: put ? [...t.tags, tag] : t.tags.filter((x) => x !== tag) }));
        }), 'Target');
      },
      render: (req, tenant, targets) => renderTargets(deps, tenant, req, targets),
      toggleFields: ['assignedTargets', 'unassignedTargets'],
    },
  });
}
