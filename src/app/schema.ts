import { ACTION, ACTION_STATUS, actionSchema, actionStatusSchema } from '../domain/action.js';
import {
  ARTIFACT, DS, DS_TAG, DS_TYPE, SM, SM_TYPE, TARGET_TAG,
  artifactSchema, dsSchema, dsTypeSchema, smSchema, smTypeSchema, tagSchema,
} from '../domain/repository.js';
import { ROLLOUT, ROLLOUT_GROUP, ROLLOUT_MEMBERS, rolloutGroupSchema, rolloutMembersSchema, rolloutSchema } from '../domain/rollout.js';
import { TARGET, targetSchema } from '../domain/target.js';
import { TARGET_FILTER, TARGET_TYPE, targetFilterSchema, targetTypeSchema } from '../domain/targeting.js';
import { WEBHOOK, WEBHOOK_CURSOR, WEBHOOK_DELIVERY, webhookCursorSchema, webhookDeliverySchema, webhookSchema } from '../domain/webhook.js';
import { TENANT_CONFIG, tenantConfigSchema } from '../tenancy/tenant-config-service.js';
import { TENANT_DIRECTORY, tenantDirectorySchema } from '../tenancy/directory.js';
import type { Schema } from '../store/port.js';

/** Every kind of record and how it is indexed: the one schema both store adapters are opened with. */
export const SCHEMA: Schema = {
  [TARGET]: targetSchema,
  [ACTION]: actionSchema,
  [ACTION_STATUS]: actionStatusSchema,
  [SM_TYPE]: smTypeSchema,
  [SM]: smSchema,
  [ARTIFACT]: artifactSchema,
  [DS_TYPE]: dsTypeSchema,
  [DS]: dsSchema,
  [TARGET_TAG]: tagSchema,
  [DS_TAG]: tagSchema,
  [TARGET_TYPE]: targetTypeSchema,
  [TARGET_FILTER]: targetFilterSchema,
  [TENANT_CONFIG]: tenantConfigSchema,
  [TENANT_DIRECTORY]: tenantDirectorySchema,
  [ROLLOUT]: rolloutSchema,
  [ROLLOUT_GROUP]: rolloutGroupSchema,
  [ROLLOUT_MEMBERS]: rolloutMembersSchema,
  [WEBHOOK]: webhookSchema,
  [WEBHOOK_DELIVERY]: webhookDeliverySchema,
  [WEBHOOK_CURSOR]: webhookCursorSchema,
};
