/**
 * The JSON replies of the DDI API, as poll.ts, deployment-json.ts, feedback.ts, confirmation.ts and
 * artifacts.ts write them (for the OpenAPI document; a test checks real replies against them).
 * @see reference/hawkbit-api.md §1, §2
 */
import { z } from 'zod';

const href = z.looseObject({ href: z.string() });
const hrefs = z.record(z.string(), href);

/** DdiControllerBase: the poll's answer. */
export const pollResponse = z.looseObject({
  config: z.looseObject({ polling: z.looseObject({ sleep: z.string().describe('HH:MM:SS') }) }),
  _links: z.looseObject({
    deploymentBase: href.optional(), cancelAction: href.optional(), confirmationBase: href.optional(),
    installedBase: href.optional(), configData: href.optional(),
  }).optional(),
}).meta({ id: 'DdiControllerBase' });

/** DdiArtifact. */
export const ddiArtifactResponse = z.looseObject({
  filename: z.string(),
  hashes: z.looseObject({ sha1: z.string(), md5: z.string(), sha256: z.string().optional() }),
  size: z.number().int().min(0),
  _links: hrefs,
}).meta({ id: 'DdiArtifact' });

const handling = z.enum(['skip', 'attempt', 'forced']);
const chunk = z.looseObject({
  part: z.string(),
  version: z.string(),
  name: z.string(),
  encrypted: z.boolean().optional(),
  artifacts: z.array(ddiArtifactResponse),
  metadata: z.array(z.looseObject({ key: z.string(), value: z.string() })).optional(),
});
const deployment = z.looseObject({
  download: handling,
  update: handling,
  maintenanceWindow: z.enum(['available', 'unavailable']).optional(),
  chunks: z.array(chunk),
});
const actionHistory = z.looseObject({ status: z.string(), messages: z.array(z.string()) });

/** DdiDeploymentBase (deploymentBase, installedBase). */
export const deploymentBaseResponse = z.looseObject({
  id: z.string(),
  deployment,
  actionHistory: actionHistory.optional(),
}).meta({ id: 'DdiDeploymentBase' });

/** DdiConfirmationBaseAction (confirmationBase/{actionId}). */
export const confirmationActionResponse = z.looseObject({
  id: z.string(),
  confirmation: deployment,
  actionHistory: actionHistory.optional(),
}).meta({ id: 'DdiConfirmationBaseAction' });

/** DdiConfirmationBase (confirmationBase). */
export const confirmationBaseResponse = z.looseObject({
  autoConfirm: z.looseObject({
    active: z.boolean(), initiator: z.string().optional(), remark: z.string().optional(), activatedAt: z.number().int(),
  }),
  _links: hrefs,
}).meta({ id: 'DdiConfirmationBase' });

/** DdiCancel. */
export const cancelActionResponse = z.looseObject({
  id: z.string(),
  cancelAction: z.looseObject({ stopId: z.string() }),
}).meta({ id: 'DdiCancel' });
