/**
 * Artifacts of a software module: list, read, delete and download
 * (`/rest/v1/softwaremodules/{id}/artifacts[/{artifactId}[/download]]`); the upload is in artifact-upload.ts.
 * @see reference §3.12
 */
import { artifactReply } from '../../artifacts/index.js';
import { touched } from '../../domain/audit.js';
import { notFound } from '../../domain/errors.js';
import { ARTIFACT, SM, type ArtifactRecord } from '../../domain/repository.js';
import type { QueryDoc, Request, Route } from '../../http/types.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { ACCESS, DOWNLOAD } from '../kit/access.js';
import { callerOf, isFull, pathId } from '../kit/request.js';
import { commitOrThrow, loadOr404 } from '../kit/store.js';
import { releaseBinaries } from './binaries.js';
import type { RepositoryDeps } from './deps.js';
import { artifactJson } from './json.js';
import { assertLive, assertUnlocked } from './rules.js';
import { z } from 'zod';
import { artifactResponse } from './responses.js';

const REPRESENTATION: QueryDoc = { name: 'representation', values: ['compact', 'full'], description: 'full adds the download links' };

const SM_LABEL = 'SoftwareModule';
const BASE = '/rest/v1/softwaremodules/:softwareModuleId/artifacts';

export function artifactRoutes(deps: RepositoryDeps): Route[] {
  const moduleId = (req: Request) => pathId(req, 'softwareModuleId', SM_LABEL);
  /** The artifact, if it belongs to the module in the path (404 otherwise). */
  const artifactOf = async (req: Request) => {
    const { tenant } = callerOf(req);
    const module = await loadOr404(deps.store, tenant, SM, moduleId(req));
    const id = pathId(req, 'artifactId', 'Artifact');
    const found = await deps.store.get<ArtifactRecord>(tenant, ARTIFACT, id);
    if (found === undefined || found.value.module !== module.id) throw notFound('Artifact', id);
    return { module, artifact: found };
  };

  return [
    {
      method: 'GET', path: BASE, auth: deps.mgmtAuth(ACCESS.softwareModule.read),
      doc: { summary: "List a software module's artifacts", query: [REPRESENTATION], response: z.array(artifactResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const module = await loadOr404(deps.store, tenant, SM, moduleId(req));
        const ids = (await deps.store.members(tenant, ARTIFACT, 'module', String(module.id), SCAN_ALL)).ids;
        const list = (await loadRecords<ArtifactRecord>(deps.store, tenant, ARTIFACT, ids)).map((f) => f.value).sort((a, b) => a.id - b.id);
        const full = isFull(req);
        return { status: 200, json: list.map((a) => artifactJson(req, a, full)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:artifactId`, auth: deps.mgmtAuth(ACCESS.softwareModule.read), doc: { response: artifactResponse },
      handler: async (req) => ({ status: 200, json: artifactJson(req, (await artifactOf(req)).artifact.value) }),
    },
    {
      method: 'DELETE', path: `${BASE}/:artifactId`, auth: deps.mgmtAuth(ACCESS.softwareModule.delete), doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const sha1 = await commitOrThrow(deps.store, tenant, 'the software module', async () => {
          const { module, artifact } = await artifactOf(req);
          assertLive(module.value, SM_LABEL);
          assertUnlocked(module.value, SM_LABEL, 'delete artifacts');
          // the module's version is part of the commit, so a concurrent lock wins cleanly
          return {
            commit: {
              writes: [
                { kind: ARTIFACT, id: artifact.id, expect: artifact.version, before: artifact.value, after: null },
                {
                  kind: SM, id: module.id, expect: module.version, before: module.value,
                  after: touched(module.value, username, deps.now()),
                },
              ],
            },
            result: () => artifact.value.hashes.sha1,
          };
        });
        await releaseBinaries(deps, tenant, [sha1]);
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: `${BASE}/:artifactId/download`, auth: deps.mgmtAuth(DOWNLOAD), produces: 'other',
      doc: { summary: 'Download the artifact (Range requests honoured)', response: { status: 200, contentType: 'application/octet-stream' } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const { artifact } = await artifactOf(req);
        const a = artifact.value;
        const binary = await deps.artifacts.open(tenant, a.hashes.sha1);
        return artifactReply(req, {
          path: binary.path, size: binary.size, mtimeMs: a.createdAt, sha1: a.hashes.sha1, md5: a.hashes.md5, filename: a.filename,
        });
      },
    },
  ];
}
