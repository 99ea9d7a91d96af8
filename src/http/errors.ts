/**
 * The one place that turns anything thrown into hawkBit's error body and a status
 * (spec section 7): `{exceptionClass, errorCode, message}`.
 * - AppError: its catalogue entry, message and extra headers;
 * - StoreUnavailableError: 503 STORE_UNAVAILABLE (the store's detail goes to the log only);
 * - anything else: 500 GENERIC with a fixed message, logged with its stack.
 * @see reference/hawkbit-api.md section 7.1
 */
import type { Logger } from 'pino';
import { AppError, ERRORS, type ErrorCode } from '../domain/errors.js';
import { StoreUnavailableError } from '../store/port.js';
import type { Reply } from './types.js';

export interface ErrorBody {
  readonly exceptionClass: string;
  readonly errorCode: string;
  readonly message: string;
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

export function toErrorReply(err: unknown, logger: Logger): Reply {
  if (err instanceof AppError) return errorReply(err.code, err.message, err.headers, err.status);
  if (err instanceof StoreUnavailableError) {
    logger.warn({ err }, 'store unavailable');
    return errorReply('STORE_UNAVAILABLE', 'The data store is unavailable; try again later.');
  }
  logger.error({ err }, 'unhandled error while serving a request');
  return errorReply('GENERIC', 'An unexpected error occurred on the server.');
}

/** Written as is when even the error reply cannot be produced (fastify's fixed fallback). */
export const FALLBACK_ERROR_JSON = JSON.stringify(errorBody('GENERIC', 'An unexpected error occurred on the server.'));
