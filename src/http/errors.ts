/**
 * The one place that turns anything thrown into hawkBit's error body and a status
 * (spec section 7): `{exceptionClass, errorCode, message}`.
 * - AppError: its catalogue entry, message and extra headers;
 * - StoreUnavailableError: 503 STORE_UNAVAILABLE (the store's detail goes to the log only);
 * - anything else: 500 GENERIC with a fixed message, logged with its stack.
 * Every 5xx is logged with a fresh `requestId`, and its body carries the same id (`requestId`, a field
 * hawkBit's body does not have) so an operator can find the line a client reports.
 * @see reference/hawkbit-api.md section 7.1
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError, ERRORS, type ErrorCode } from '../domain/errors.js';
import { StoreUnavailableError } from '../store/port.js';
import type { Reply } from './types.js';

export interface ErrorBody {
  readonly exceptionClass: string;
  readonly errorCode: string;
  readonly message: string;
  /** 5xx only: the id the server's log line of this failure carries. */
  readonly requestId?: string;
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  const spec = ERRORS[code];
  return { exceptionClass: spec.exceptionClass, errorCode: spec.errorCode, message };
}

/** `status`: the code's own unless the caller's generation answers another (AppError.status). */
export function errorReply(
  code: ErrorCode, message: string, headers?: Readonly<Record<string, string>>, status: number = ERRORS[code].status,
): Reply {
  const json = errorBody(code, message);
  return headers === undefined ? { status, json } : { status, json, headers };
}

/** `request`: what the log line says of the request (method, path). */
export function toErrorReply(err: unknown, logger: Logger, request: Readonly<Record<string, unknown>> = {}): Reply {
  if (err instanceof AppError) {
    const reply = errorReply(err.code, err.message, err.headers, err.status);
    return reply.status < 500 ? reply : identified(reply, (requestId) => logger.warn({ err, requestId, ...request }, 'server error answered'));
  }
  if (err instanceof StoreUnavailableError) {
    return identified(errorReply('STORE_UNAVAILABLE', 'The data store is unavailable; try again later.'),
      (requestId) => logger.warn({ err, requestId, ...request }, 'store unavailable'));
  }
  return identified(errorReply('GENERIC', GENERIC_MESSAGE), (requestId) => logger.error({ err, requestId, ...request }, 'unhandled error while serving a request'));
}

/** A 5xx reply with a fresh request id in its body, logged by `log` with the same id. */
function identified(reply: Reply, log: (requestId: string) => void): Reply {
  const requestId = randomUUID();
  log(requestId);
  return { ...reply, json: { ...(reply.json as ErrorBody), requestId } };
}

const GENERIC_MESSAGE = 'An unexpected error occurred on the server.';

/** Written when even the error reply cannot be produced (fastify's fixed fallback), with the id of its log line. */
export function fallbackErrorJson(requestId: string): string {
  return JSON.stringify({ ...errorBody('GENERIC', GENERIC_MESSAGE), requestId });
}
