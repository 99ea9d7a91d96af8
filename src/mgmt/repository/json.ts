/**
 * JSON of the smaller repository entities: module types, set types, set tags, artifacts, metadata.
 * @see reference §3.10, §3.11, §3.12, §3.13
 */
import type {
  ArtifactRecord, DistributionSetTypeRecord, SoftwareModuleTypeRecord, TagRecord,
} from '../../domain/repository.js';
import type { Request } from '../../http/types.js';
import { auditJson, link } from '../kit/hal.js';

export function smTypeJson(req: Request, t: SoftwareModuleTypeRecord): object {
  return {
    ...auditJson(t),
    name: t.name,
    description: t.description,
    key: t.key,
    maxAssignments: t.maxAssignments,
    id: t.id,
    deleted: t.deleted,
    colour: t.colour,
    _links: { self: link(req, `/rest/v1/softwaremoduletypes/${t.id}`) },
  };
}

export function dsTypeJson(req: Request, t: DistributionSetTypeRecord): object {
  const self = `/rest/v1/distributionsettypes/${t.id}`;
  return {
    ...auditJson(t),
    name: t.name,
    description: t.description,
    key: t.key,
    id: t.id,
    deleted: t.deleted,
    colour: t.colour,
    _links: {
      self: link(req, self),
      mandatorymodules: link(req, `${self}/mandatorymoduletypes`),
      optionalmodules: link(req, `${self}/optionalmoduletypes`),
    },
  };
}

export function dsTagJson(req: Request, t: TagRecord): object {
  const self = `/rest/v1/distributionsettags/${t.id}`;
  return {
    ...auditJson(t),
    name: t.name,
    description: t.description,
    id: t.id,
    colour: t.colour,
    _links: {
      self: link(req, self),
      assignedDistributionSets: link(req, `${self}/assigned?offset=0&limit=50`),
    },
  };
}

/** `download` is left out of the compact list representation, as hawkBit does. */
export function artifactJson(req: Request, a: ArtifactRecord, withDownload = true): object {
  const self = `/rest/v1/softwaremodules/${a.module}/artifacts/${a.id}`;
  return {
    ...auditJson(a),
    id: a.id,
    hashes: { sha1: a.hashes.sha1, md5: a.hashes.md5, sha256: a.hashes.sha256 },
    providedFilename: a.filename,
    size: a.size,
    _links: withDownload ? { self: link(req, self), download: link(req, `${self}/download`) } : { self: link(req, self) },
  };
}
