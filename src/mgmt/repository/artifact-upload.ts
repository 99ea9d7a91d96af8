/**
 * Artifact upload: `POST /rest/v1/softwaremodules/{id}/artifacts`, multipart/form-data with the
 * binary in part `file` and optional `filename`, `md5sum`, `sha1sum`, `sha256sum` (form fields or
 * query parameters). The body streams through busboy into ArtifactStorage (hashed off the event
 * loop); a checksum given before the file is checked before the content is stored, one given
 * after it right after. Whatever fails, no record is written and content nobody refers to is removed.
 * @see reference §3.12, spec 4.3 and 2.6
 */
import { created, touched } from '../../domain/audit.js';
import { AppError, type ErrorCode } from '../../domain/errors.js';
import { ARTIFACT, SM, type ArtifactRecord, type Hashes } from '../../domain/repository.js';
import type { Request, Route } from '../../http/types.js';
import { ACCESS } from '../kit/access.js';
import { callerOf, pathId } from '../kit/request.js';
import { commitOrThrow, loadOr404 } from '../kit/store.js';
import { releaseBinaries, withContent } from './binaries.js';
import type { RepositoryDeps } from './deps.js';
import { artifactJson } from './json.js';
import { parseMultipart } from './multipart.js';
import { assertLive, assertUnlocked } from './rules.js';
import { z } from 'zod';
import { artifactResponse } from './responses.js';

const LABEL = 'SoftwareModule';
const MAX_FILENAME = 256;
const CHECKSUMS = [['md5', 'md5sum', 'MD5_MISMATCH'], ['sha1', 'sha1sum', 'SHA1_MISMATCH'], ['sha256', 'sha256sum', 'SHA256_MISMATCH']] as const satisfies
  readonly (readonly [keyof Hashes, string, ErrorCode])[];

/**
 * The parts the upload reads (for the OpenAPI document; multipart.ts reads them as a stream, so no
 * schema validates them): the binary in `file`, the others as form fields or query parameters.
 */
const uploadForm = z.object({
  file: z.string().meta({ format: 'binary', description: 'the artifact (a part with a filename)' }),
  filename: z.string().max(MAX_FILENAME).optional().meta({ description: "default: the file part's filename" }),
  md5sum: z.string().optional(),
  sha1sum: z.string().optional(),
  sha256sum: z.string().optional(),
});

export function artifactUploadRoutes(deps: RepositoryDeps): Route[] {
  return [{
    method: 'POST', path: '/rest/v1/softwaremodules/:softwareModuleId/artifacts', auth: deps.mgmtAuth(ACCESS.softwareModule.create),
    body: 'stream', produces: 'json',
    doc: { summary: 'Upload an artifact (multipart/form-data)', body: uploadForm, response: { status: 201, schema: artifactResponse } },
    handler: (req) => upload(deps, req),
  }];
}

async function upload(deps: RepositoryDeps, req: Request) {
  const { tenant, username } = callerOf(req);
  const moduleId = pathId(req, 'softwareModuleId', LABEL);
  // refuse before reading the body when the answer is already known
  await checkModule(deps, tenant, moduleId);
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType === '' ? '(none)' : contentType} is not supported; send multipart/form-data with the artifact in part 'file'`);
  }
  const form = parseMultipart(req, contentType, 'file');
  const param = (name: string): string | undefined => nonEmpty(form.fields.get(name)) ?? nonEmpty(req.query.get(name) ?? undefined);
  let stored: { size: number; hashes: Hashes } | undefined;
  try {
    const part = await form.file;
    if (part === undefined) {
      throw new AppError('UPLOAD_FAILED', form.fields.has('file')
        ? "the multipart part 'file' has no filename, so it is a plain field, not the artifact binary (Content-Disposition: form-data; name=\"file\"; filename=\"...\")"
        : "the multipart body has no part named 'file' (required: the artifact binary)");
    }
    const expected = Object.fromEntries(CHECKSUMS.flatMap(([hash, field]) => (param(field) === undefined ? [] : [[hash, param(field)]])));
    stored = await deps.artifacts.ingest(tenant, part.stream, {
      maxBytes: deps.quotas.maxArtifactSize,
      maxStorageBytes: deps.quotas.maxArtifactStorage,
      signal: req.signal,
      expected,
    });
    await form.done; // fields after the file part
    verifyLate(stored.hashes, param);
    const filename = checkFilename(param('filename') ?? part.filename);
    const record = await commitArtifact(deps, tenant, moduleId, filename, stored, username);
    return { status: 201, json: artifactJson(req, record) };
  } catch (err) {
    form.abort(err instanceof Error ? err : new Error(String(err)));
    if (stored !== undefined) await releaseBinaries(deps, tenant, [stored.hashes.sha1]);
    throw err;
  }
}

/** The module takes artifacts: it exists, is neither deleted nor locked, and has room. */
async function checkModule(deps: RepositoryDeps, tenant: string, moduleId: number) {
  const module = await loadOr404(deps.store, tenant, SM, moduleId);
  assertLive(module.value, LABEL);
  assertUnlocked(module.value, LABEL, 'upload artifacts');
  const max = deps.quotas.maxArtifactsPerSoftwareModule;
  const count = await deps.store.count(tenant, ARTIFACT, 'module', String(moduleId));
  if (count >= max) throw new AppError('QUOTA_EXCEEDED', `software module ${moduleId} may hold at most ${max} artifacts`);
  return module;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}

/** Checks the checksums that arrived after the file part (those before it were checked while storing). */
function verifyLate(actual: Hashes, param: (name: string) => string | undefined): void {
  for (const [hash, field, code] of CHECKSUMS) {
    const want = param(field)?.trim().toLowerCase();
    if (want !== undefined && want !== actual[hash]) {
      throw new AppError(code, `${hash} checksum mismatch: expected ${want}, computed ${actual[hash]}`);
    }
  }
}

function checkFilename(name: string | undefined): string {
  if (name === undefined) throw new AppError('UPLOAD_FAILED', "filename: required (give the 'file' part a filename, or send a 'filename' field)");
  if (name.length > MAX_FILENAME) throw new AppError('UPLOAD_FAILED', `filename: must be at most ${MAX_FILENAME} characters long, got ${name.length}`);
  // eslint-disable-next-line no-control-regex
  if (/[/\\\x00-\x1f\x7f]/.test(name) || name === '.' || name === '..') {
    throw new AppError('UPLOAD_FAILED', `filename: must not contain '/', '\\' or control characters, got ${JSON.stringify(name)}`);
  }
  return name;
}

/**
 * Writes the record, with the module's version in the same commit (a module locked or deleted
 * meanwhile wins), while no removal of the same content can run.
 */
async function commitArtifact(
  deps: RepositoryDeps, tenant: string, moduleId: number, filename: string, stored: { size: number; hashes: Hashes }, username: string,
): Promise<ArtifactRecord> {
  const { store } = deps;
  const id = await store.nextIds(tenant, ARTIFACT, 1);
  return withContent(tenant, stored.hashes.sha1, async () => {
    await deps.artifacts.open(tenant, stored.hashes.sha1); // still there (410 otherwise)
    return commitOrThrow(store, tenant, `an artifact named ${JSON.stringify(filename)} in software module ${moduleId}`, async () => {
      const module = await checkModule(deps, tenant, moduleId);
      if ((await store.lookup(tenant, ARTIFACT, 'moduleFilename', `${moduleId}\u0000${filename}`)) !== undefined) {
        throw new AppError('ALREADY_EXISTS', `software module ${moduleId} already has an artifact named ${JSON.stringify(filename)}`);
      }
      const at = deps.now();
      const record: ArtifactRecord = { id, module: moduleId, filename, size: stored.size, hashes: stored.hashes, ...created(username, at) };
      return {
        commit: {
          writes: [
            { kind: ARTIFACT, id, expect: 0, after: record },
            { kind: SM, id: moduleId, expect: module.version, before: module.value, after: touched(module.value, username, at) },
          ],
        },
        result: () => record,
      };
    });
  });
}
