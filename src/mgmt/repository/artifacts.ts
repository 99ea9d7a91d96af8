/**
 * Artifacts of a software module: list, read, delete and download
 * (`/rest/v1/softwaremodules/{id}/artifacts[/{artifactId}[/download]]`); the upload is in artifact-upload.ts.
 * @see reference §3.12
 */
import type { Services } from '../../app/services.js';
import { artifactReply } from '../../artifacts/index.js';
import { touched } from '../../domain/audit.js';
import { AppError, notFound } from '../../domain/errors.js';
import { ARTIFACT, SM, type ArtifactRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Request, Route } from '../../http/types.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { expectCommitted, loadOr404 } from '../kit/entities.js';
import { areaAuth, downloadAuth, principalOf } from './auth.js';
import { releaseBinaries } from './binaries.js';
import { artifactJson } from './json.js';
import { isFullRepresentation, pathId } from './params.js';
import { assertLive, assertUnlocked } from './rules.js';

const SM_LABEL = 'SoftwareModule';
const BASE = '/rest/v1/softwaremodules/:softwareModuleId/artifacts';

export function artifactRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'SOFTWARE_MODULE');
  const store = () => services.ctx.store;
  const moduleId = (req: Request) => pathId(req, 'softwareModuleId', SM_LABEL);
  /** The artifact, if it belongs to the module in the path (404 otherwise). */
  const artifactOf = async (req: Request) => {
    const { tenant } = principalOf(req);
    const module = await loadOr404<SoftwareModuleRecord>(store(), tenant, SM, moduleId(req), SM_LABEL);
    const id = pathId(req, 'artifactId', 'Artifact');
    const found = await store().get<ArtifactRecord>(tenant, ARTIFACT, id);
    if (found === undefined || found.value.module !== module.id) throw notFound('Artifact', id);
    return { module, artifact: found };
  };

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const module = await loadOr404<SoftwareModuleRecord>(store(), tenant, SM, moduleId(req), SM_LABEL);
        const ids = (await store().members(tenant, ARTIFACT, 'module', String(module.id), { offset: 0, limit: SCAN_LIMIT })).ids;
        const found = await store().getMany<ArtifactRecord>(tenant, ARTIFACT, ids);
        const full = isFullRepresentation(req);
        const list = found.flatMap((f) => (f === undefined ? [] : [f.value])).sort((a, b) => a.id - b.id);
        return { status: 200, json: list.map((a) => artifactJson(req, a, full)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:artifactId`, auth: auth.read,
      handler: async (req) => ({ status: 200, json: artifactJson(req, (await artifactOf(req)).artifact.value) }),
    },
    {
      method: 'DELETE', path: `${BASE}/:artifactId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        for (let attempt = 1; attempt <= 8; attempt++) {
          const { module, artifact } = await artifactOf(req);
          assertLive(module.value, SM_LABEL);
          assertUnlocked(module.value, SM_LABEL, 'delete artifacts');
          // the module's version is part of the commit, so a concurrent lock wins cleanly
          const result = await store().commit(tenant, {
            writes: [
              { kind: ARTIFACT, id: artifact.id, expect: artifact.version, before: artifact.value, after: null },
              { kind: SM, id: module.id, expect: module.version, before: module.value, after: touched(module.value, username, services.now()) },
            ],
          });
          if (result.ok) {
            await releaseBinaries(services, tenant, [artifact.value.hashes.sha1]);
            return { status: 204 };
          }
          if (result.reason !== 'stale-version') expectCommitted(result, `Artifact ${artifact.id}`);
        }
        throw new AppError('CONCURRENT_MODIFICATION', 'the software module is being modified concurrently; retry the request');
      },
    },
    {
      method: 'GET', path: `${BASE}/:artifactId/download`, auth: downloadAuth(services), produces: 'other',
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const { artifact } = await artifactOf(req);
        const a = artifact.value;
        const binary = await services.artifacts.open(tenant, a.hashes.sha1);
        return artifactReply(req, { path: binary.path, size: binary.size, mtimeMs: a.createdAt, sha1: a.hashes.sha1, md5: a.hashes.md5, filename: a.filename });
      },
    },
  ];
}
