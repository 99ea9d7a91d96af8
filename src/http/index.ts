/** The HTTP platform: what handler modules import. Only this folder knows uWebSockets.js. */
export type { Authenticator, DdiPrincipal, Handler, MgmtPrincipal, Principal, Reply, Request, Route, StreamBody } from './types.js';
export { basicAuth, missingPermission, parseBasic, WWW_AUTHENTICATE, type PermissionRequirement } from './auth-basic.js';
export { errorBody, errorReply, toErrorReply, type ErrorBody } from './errors.js';
export { acceptSingleAsArray, parseBody, parseJsonBody, readJson, validate } from './json.js';
export { href, link, segment, type Link } from './links.js';
export { keepNulls } from './serialize.js';
export { startHttpServer, type HttpServer, type HttpServerOptions } from './server.js';
