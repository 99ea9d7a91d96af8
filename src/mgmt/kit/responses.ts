/**
 * The JSON replies the kit renders for every resource that uses it: tags (tag-kinds.ts), metadata
 * entries (metadata.ts) and tenant configuration entries (config-json.ts). For the OpenAPI
 * document; a test checks real replies against them. @see reference §3.2, §3.11, §3.14
 */
import { z } from 'zod';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';

/** MgmtTag (target and distribution set tags). */
export const tagResponse = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  description: z.string().optional(),
  colour: z.string().optional(),
  ...auditShape,
  _links: linksSchema,
}).meta({ id: 'MgmtTag' });

/** A metadata entry; `targetVisible` on software modules' entries only. */
export const metadataResponse = z.looseObject({
  key: z.string(),
  value: z.string(),
  targetVisible: z.boolean().optional(),
}).meta({ id: 'MgmtMetadata' });

/** MgmtSystemTenantConfigurationValue: `value` always written, audit fields when the tenant stores one. */
export const configEntryResponse = z.looseObject({
  value: z.unknown(),
  global: z.boolean(),
  lastModifiedAt: z.number().int().optional(),
  lastModifiedBy: z.string().optional(),
  createdAt: z.number().int().optional(),
  createdBy: z.string().optional(),
  _links: linksSchema,
}).meta({ id: 'MgmtSystemTenantConfigurationValue' });
