/**
 * The JSON replies of software modules, distribution sets, artifacts and both type kinds, as
 * views.ts and json.ts render them (for the OpenAPI document; a test checks real replies against them).
 * @see reference §3.9, §3.10, §3.12, §3.13
 */
import { z } from 'zod';
import { auditShape, linksSchema } from '../../apidoc/shapes.js';

/** MgmtSoftwareModule (null fields left out). */
export const softwareModuleResponse = z.looseObject({
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  id: z.number().int(),
  version: z.string(),
  type: z.string().optional().describe('the type key'),
  typeName: z.string().optional(),
  vendor: z.string().optional(),
  encrypted: z.boolean(),
  locked: z.boolean(),
  deleted: z.boolean(),
  complete: z.boolean().describe("holds its type's minArtifacts artifacts (hawkBit 1.x)"),
  _links: linksSchema,
}).meta({ id: 'MgmtSoftwareModule' });

/** MgmtDistributionSet, its modules included. */
export const distributionSetResponse = z.looseObject({
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  id: z.number().int(),
  modules: z.array(softwareModuleResponse),
  requiredMigrationStep: z.boolean(),
  type: z.string().optional().describe('the type key'),
  typeName: z.string().optional(),
  complete: z.boolean(),
  version: z.string(),
  deleted: z.boolean(),
  valid: z.boolean(),
  locked: z.boolean(),
  _links: linksSchema,
}).meta({ id: 'MgmtDistributionSet' });

/** MgmtArtifact; the compact list leaves the download link out. */
export const artifactResponse = z.looseObject({
  ...auditShape,
  id: z.number().int(),
  hashes: z.looseObject({ sha1: z.string(), md5: z.string(), sha256: z.string().optional() }),
  providedFilename: z.string(),
  size: z.number().int().min(0),
  _links: linksSchema,
}).meta({ id: 'MgmtArtifact' });

const typeShape = {
  ...auditShape,
  name: z.string(),
  description: z.string().optional(),
  key: z.string(),
  id: z.number().int(),
  deleted: z.boolean(),
  colour: z.string().optional(),
  _links: linksSchema,
};

/** MgmtSoftwareModuleType. */
export const softwareModuleTypeResponse = z.looseObject({
  ...typeShape,
  maxAssignments: z.number().int(),
  minArtifacts: z.number().int().min(0).describe('artifacts a module of this type needs to be complete (hawkBit 1.x)'),
})
  .meta({ id: 'MgmtSoftwareModuleType' });

/** MgmtDistributionSetType. */
export const distributionSetTypeResponse = z.looseObject(typeShape).meta({ id: 'MgmtDistributionSetType' });
