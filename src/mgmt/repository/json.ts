/**
 * JSON of the smaller repository entities: module types, set types, artifacts.
 * @see reference §3.10, §3.12, §3.13
 */
import type { Audit } from '../../domain/audit.js';
import type { ArtifactRecord, DistributionSetTypeRecord, SoftwareModuleTypeRecord } from '../../domain/repository.js';
import type { Request } from '../../http/types.js';
import { auditJson, link, type Link } from '../kit/hal.js';

interface TypeRecord extends Audit {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly description: string | null;
  readonly colour: string | null;
  readonly deleted: boolean;
}

/** The fields both type kinds share, then the kind's own, then the links. */
function typeJson(t: TypeRecord, own: object, links: Record<string, Link>): object {
  return {
    ...auditJson(t), name: t.name, description: t.description, key: t.key, ...own,
    id: t.id, deleted: t.deleted, colour: t.colour, _links: links,
  };
}

export function smTypeJson(req: Request, t: SoftwareModuleTypeRecord): object {
  return typeJson(t, { maxAssignments: t.maxAssignments, minArtifacts: t.minArtifacts ?? 0 }, { self: link(req, `/rest/v1/softwaremoduletypes/${t.id}`) });
}

export function dsTypeJson(req: Request, t: DistributionSetTypeRecord): object {
  const self = `/rest/v1/distributionsettypes/${t.id}`;
  return typeJson(t, {}, {
    self: link(req, self),
    mandatorymodules: link(req, `${self}/mandatorymoduletypes`),
    optionalmodules: link(req, `${self}/optionalmoduletypes`),
  });
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
