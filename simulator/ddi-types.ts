/**
 * The DDI JSON the simulator reads (reference §2). Declared here rather than imported from src/ so
 * the simulator checks the wire format the way an independent device implementation would.
 */
export interface Link { readonly href: string }

export interface DdiRoot {
  readonly config?: { readonly polling?: { readonly sleep?: string } };
  readonly _links?: Partial<Record<'deploymentBase' | 'confirmationBase' | 'cancelAction' | 'installedBase' | 'configData', Link>>;
}

export interface DdiArtifact {
  readonly filename: string;
  readonly size: number;
  readonly hashes: { readonly sha1: string; readonly md5?: string; readonly sha256?: string };
  readonly _links?: Record<string, Link | undefined>;
}

export interface DdiChunk {
  readonly part: string;
  readonly version: string;
  readonly name: string;
  readonly artifacts?: readonly DdiArtifact[];
}

export interface DdiDeploymentBase {
  readonly id: string;
  readonly deployment: {
    readonly download?: string; readonly update?: string; readonly maintenanceWindow?: string; readonly chunks: readonly DdiChunk[];
  };
}

export interface DdiCancel { readonly id: string; readonly cancelAction: { readonly stopId: string } }

/** `HH:mm:ss` to milliseconds; undefined for anything else. */
export function parseSleep(value: string | undefined): number | undefined {
  const m = value ? /^(\d+):([0-5]\d):([0-5]\d)$/.exec(value) : null;
  if (!m) return undefined;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000;
}

/** The action's resource URL without the cache-buster query, plus a sub-path (e.g. `/feedback`). */
export function subResource(href: string, tail: string): string {
  const u = new URL(href);
  u.search = '';
  u.pathname = u.pathname.replace(/\/$/, '') + tail;
  return u.toString();
}
