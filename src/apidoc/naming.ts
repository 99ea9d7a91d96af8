/**
 * What the document derives from a route's path: the OpenAPI path, path parameters and their
 * types, the tag (the resource the path is under), a summary and an operationId.
 */

/** `/rest/v1/targets/:targetId` -> `/rest/v1/targets/{targetId}` */
export function openApiPath(path: string): string {
  return path.replace(/\/:([A-Za-z_][A-Za-z0-9_]*)/g, '/{$1}');
}

/** Path parameters that are text; every other one is a numeric entity id. */
const TEXT_PARAMS = new Set(['tenant', 'controllerId', 'targetId', 'fileName', 'keyName', 'metadataKey']);

export function pathParams(path: string): { name: string; type: 'string' | 'integer' }[] {
  return path.split('/').filter((s) => s.startsWith(':')).map((s) => {
    const name = s.slice(1);
    return { name, type: TEXT_PARAMS.has(name) ? 'string' : 'integer' };
  });
}

/** The tag of a Management resource: the collection under /rest/v1. */
const RESOURCE_TAGS: Readonly<Record<string, string>> = {
  targets: 'Targets',
  targettags: 'Target Tags',
  targettypes: 'Target Types',
  targetfilters: 'Target Filters',
  distributionsets: 'Distribution Sets',
  distributionsettags: 'Distribution Set Tags',
  distributionsettypes: 'Distribution Set Types',
  softwaremodules: 'Software Modules',
  softwaremoduletypes: 'Software Module Types',
  rollouts: 'Rollouts',
  actions: 'Actions',
  system: 'System Configuration',
  userinfo: 'User Info',
  events: 'Events',
  ws: 'Events',
  'openapi.json': 'API Documentation',
  docs: 'API Documentation',
};
/** The tag of the first segment of other paths. */
const ROOT_TAGS: Readonly<Record<string, string>> = {
  health: 'Platform', ready: 'Platform', metrics: 'Platform', v3: 'API Documentation', ui: 'Console',
};

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * `/rest/v1/<collection>/...`: the collection's tag; `/{tenant}/controller/v1/...`: DDI Root
 * Controller; anything else: by its first segment (Platform, Console, ...).
 */
export function tagOf(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments[0] === 'rest' && segments[1] === 'v1' && segments[2] !== undefined) return RESOURCE_TAGS[segments[2]] ?? capitalized(segments[2]);
  if (segments[1] === 'controller') return 'DDI Root Controller';
  const first = segments[0] ?? '';
  return ROOT_TAGS[first] ?? capitalized(first);
}

const VERBS: Readonly<Record<string, string>> = { GET: 'Read', POST: 'Post to', PUT: 'Update', DELETE: 'Delete', PATCH: 'Patch' };

/** `GET /rest/v1/targets/:targetId/actions` -> `Read targets/{targetId}/actions`. */
export function summaryOf(method: string, path: string): string {
  const short = openApiPath(path).replace(/^\/rest\/v1\//, '').replace(/^\/\{tenant\}\/controller\/v1\/\{controllerId\}/, 'controller');
  return `${VERBS[method] ?? method} ${short === '' ? '/' : short}`;
}

/** `GET /rest/v1/targets/:targetId/actions` -> `getTargetsByTargetIdActions` (DDI paths: `getDdi...`). */
export function operationId(method: string, path: string): string {
  const words = path.replace(/^\/rest\/v1\//, '/').replace(/^\/:tenant\/controller\/v1\//, '/ddi/').split('/').filter((s) => s !== '')
    .map((s) => (s.startsWith(':') ? `By${capitalized(s.slice(1))}` : capitalized(s)))
    .join('')
    .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c === undefined ? '' : c.toUpperCase()));
  return `${method.toLowerCase()}${words === '' ? 'Root' : words}`;
}
