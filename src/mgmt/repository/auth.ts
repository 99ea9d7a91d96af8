import type { Services } from '../../app/services.js';
import type { Authenticator, MgmtPrincipal, Request } from '../../http/types.js';

/**
 * Who may do what on the repository resources: the spec's coarse *_REPOSITORY permissions, or
 * hawkBit's finer ones for the entity (READ_SOFTWARE_MODULE, ...), either one suffices.
 * @see spec 4.3, reference §11
 */
export type RepositoryArea = 'SOFTWARE_MODULE' | 'SOFTWARE_MODULE_TYPE' | 'DISTRIBUTION_SET' | 'DISTRIBUTION_SET_TYPE';

export interface AreaAuth {
  readonly read: Authenticator;
  readonly create: Authenticator;
  readonly update: Authenticator;
  readonly delete: Authenticator;
}

export function areaAuth(services: Services, area: RepositoryArea): AreaAuth {
  const of = (op: 'READ' | 'CREATE' | 'UPDATE' | 'DELETE'): Authenticator =>
    services.mgmtAuth({ anyOf: [`${op}_REPOSITORY`, `${op}_${area}`] });
  return { read: of('READ'), create: of('CREATE'), update: of('UPDATE'), delete: of('DELETE') };
}

/** Artifact downloads: a repository reader, or hawkBit's dedicated download permissions. */
export function downloadAuth(services: Services): Authenticator {
  return services.mgmtAuth({ anyOf: ['READ_REPOSITORY', 'DOWNLOAD_REPOSITORY_ARTIFACT', 'READ_SOFTWARE_MODULE_ARTIFACT'] });
}

/** The Management principal of an authenticated request (routes here always carry an authenticator). */
export function principalOf(req: Request): MgmtPrincipal {
  const p = req.principal;
  if (p === undefined || p.kind !== 'mgmt') throw new Error('repository route reached without a Management principal');
  return p;
}
