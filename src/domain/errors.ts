/**
 * The one error catalogue. `errorCode` and `exceptionClass` are hawkBit's, copied exactly because
 * clients match on them; `status` follows spec section 7. The two repository codes are spelt as 0.7
 * through HEAD send them (`entityNotFound`, `entityAlreadyExists`; SpServerError.java at each tag);
 * only 0.5-0.6 sent the misspellings `entitiyNotFound` / `entitiyAlreayExists`.
 * @see reference/hawkbit-api.md section 7
 */
import type { ManagementApiGeneration } from './compat.js';

/** `status1x`: the status under `compat.managementApi: "1.x"` where hawkBit 1.x answers another (compat.ts). */
type Spec = { readonly status: number; readonly status1x?: number; readonly errorCode: string; readonly exceptionClass: string };

const REPO = 'org.eclipse.hawkbit.repository.exception.';
const REST = 'org.eclipse.hawkbit.rest.exception.';

export const ERRORS = {
  // --- request shape -----------------------------------------------------------------------
  BODY_NOT_READABLE: { status: 400, errorCode: 'hawkbit.server.error.rest.body.notReadable', exceptionClass: 'org.springframework.http.converter.HttpMessageNotReadableException' },
  CONSTRAINT_VIOLATION: { status: 400, errorCode: 'hawkbit.server.error.repo.constraintViolation', exceptionClass: 'jakarta.validation.ConstraintViolationException' },
  BAD_PARAMETER: { status: 400, errorCode: 'hawkbit.server.error.rest.param.invalid', exceptionClass: 'org.springframework.web.method.annotation.MethodArgumentTypeMismatchException' },
  SORT_SYNTAX: { status: 400, errorCode: 'hawkbit.server.error.rest.param.sortParamSyntax', exceptionClass: REST + 'SortParameterSyntaxErrorException' },
  SORT_FIELD: { status: 400, errorCode: 'hawkbit.server.error.rest.param.invalidField', exceptionClass: REST + 'SortParameterUnsupportedFieldException' },
  SORT_DIRECTION: { status: 400, errorCode: 'hawkbit.server.error.rest.param.invalidDirection', exceptionClass: REST + 'SortParameterUnsupportedDirectionException' },
  RSQL_SYNTAX: { status: 400, errorCode: 'hawkbit.server.error.rest.param.rsqlParamSyntax', exceptionClass: REPO + 'RSQLParameterSyntaxException' },
  RSQL_FIELD: { status: 400, errorCode: 'hawkbit.server.error.rest.param.rsqlInvalidField', exceptionClass: REPO + 'RSQLParameterUnsupportedFieldException' },
  PAYLOAD_TOO_LARGE: { status: 413, errorCode: 'hawkbit.server.error.rest.body.tooLarge', exceptionClass: 'org.springframework.web.multipart.MaxUploadSizeExceededException' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, errorCode: 'hawkbit.server.error.rest.mediaType.unsupported', exceptionClass: 'org.springframework.web.HttpMediaTypeNotSupportedException' },
  NOT_ACCEPTABLE: { status: 406, errorCode: 'hawkbit.server.error.rest.mediaType.notAcceptable', exceptionClass: 'org.springframework.web.HttpMediaTypeNotAcceptableException' },
  METHOD_NOT_ALLOWED: { status: 405, errorCode: 'hawkbit.server.error.rest.method.notAllowed', exceptionClass: 'org.springframework.web.HttpRequestMethodNotSupportedException' },
  ROUTE_NOT_FOUND: { status: 404, errorCode: 'hawkbit.server.error.rest.route.notFound', exceptionClass: 'org.springframework.web.servlet.NoHandlerFoundException' },
  RANGE_NOT_SATISFIABLE: { status: 416, errorCode: 'hawkbit.server.error.rest.range.notSatisfiable', exceptionClass: 'org.eclipse.hawkbit.rest.util.RangeNotSatisfiableException' },
  PRECONDITION_FAILED: { status: 412, errorCode: 'hawkbit.server.error.rest.precondition.failed', exceptionClass: 'org.eclipse.hawkbit.rest.util.PreconditionFailedException' },
  TOO_MANY_REQUESTS: { status: 429, errorCode: 'hawkbit.server.error.tooManyRequests', exceptionClass: 'org.eclipse.hawkbit.security.DosFilterException' },

  // --- security ----------------------------------------------------------------------------
  UNAUTHORIZED: { status: 401, errorCode: 'hawkbit.server.error.unauthorized', exceptionClass: 'org.springframework.security.authentication.BadCredentialsException' },
  INSUFFICIENT_PERMISSION: { status: 403, errorCode: 'hawkbit.server.error.insufficientPermission', exceptionClass: 'org.eclipse.hawkbit.im.authentication.InsufficientPermissionException' },

  // --- repository ---------------------------------------------------------------------------
  GENERIC: { status: 500, errorCode: 'hawkbit.server.error.repo.genericError', exceptionClass: 'org.eclipse.hawkbit.exception.GenericSpServerException' },
  ALREADY_EXISTS: { status: 409, errorCode: 'hawkbit.server.error.repo.entityAlreadyExists', exceptionClass: REPO + 'EntityAlreadyExistsException' },
  NOT_FOUND: { status: 404, errorCode: 'hawkbit.server.error.repo.entityNotFound', exceptionClass: REPO + 'EntityNotFoundException' },
  CONCURRENT_MODIFICATION: { status: 409, errorCode: 'hawkbit.server.error.repo.concurrentModification', exceptionClass: REPO + 'ConcurrentModificationException' },
  READ_ONLY: { status: 403, errorCode: 'hawkbit.server.error.entityReadOnly', exceptionClass: REPO + 'EntityReadOnlyException' },
  LOCKED: { status: 423, errorCode: 'hawkbit.server.error.locked', exceptionClass: REPO + 'LockedException' },
  DELETED: { status: 404, errorCode: 'hawkbit.server.error.deleted', exceptionClass: REPO + 'DeletedException' },
  INVALID_TARGET_ADDRESS: { status: 400, errorCode: 'hawkbit.server.error.repo.invalidTargetAddress', exceptionClass: REPO + 'InvalidTargetAddressException' },
  INVALID_TARGET_ATTRIBUTES: { status: 400, errorCode: 'hawkbit.server.error.repo.invalidTargetAttributes', exceptionClass: REPO + 'InvalidTargetAttributeException' },
  AUTO_CONFIRM_ALREADY_ACTIVE: { status: 409, errorCode: 'hawkbit.server.error.repo.autoConfAlreadyActive', exceptionClass: REPO + 'AutoConfirmationAlreadyActiveException' },
  // spec 7 and hawkBit 0.9: every quota violation answers 403; hawkBit 1.0+ answers 429 (RestConfiguration)
  QUOTA_EXCEEDED: { status: 403, status1x: 429, errorCode: 'hawkbit.server.error.quota.tooManyEntries', exceptionClass: REPO + 'AssignmentQuotaExceededException' },
  FILE_SIZE_QUOTA_EXCEEDED: { status: 403, status1x: 429, errorCode: 'hawkbit.server.error.quota.fileSizeExceeded', exceptionClass: REPO + 'FileSizeQuotaExceededException' },
  STORAGE_QUOTA_EXCEEDED: { status: 403, status1x: 429, errorCode: 'hawkbit.server.error.quota.storageExceeded', exceptionClass: REPO + 'StorageQuotaExceededException' },

  // --- artifacts ----------------------------------------------------------------------------
  UPLOAD_FAILED: { status: 400, errorCode: 'hawkbit.server.error.artifact.uploadFailed', exceptionClass: REPO + 'ArtifactUploadFailedException' },
  MD5_MISMATCH: { status: 400, errorCode: 'hawkbit.server.error.artifact.uploadFailed.checksum.md5.match', exceptionClass: REPO + 'InvalidMD5HashException' },
  SHA1_MISMATCH: { status: 400, errorCode: 'hawkbit.server.error.artifact.uploadFailed.checksum.sha1.match', exceptionClass: REPO + 'InvalidSHA1HashException' },
  SHA256_MISMATCH: { status: 400, errorCode: 'hawkbit.server.error.artifact.uploadFailed.checksum.sha256.match', exceptionClass: REPO + 'InvalidSHA256HashException' },
  ARTIFACT_DELETE_FAILED: { status: 500, errorCode: 'hawkbit.server.error.artifact.deleteFailed', exceptionClass: REPO + 'ArtifactDeleteFailedException' },
  ARTIFACT_LOAD_FAILED: { status: 500, errorCode: 'hawkbit.server.error.artifact.loadFailed', exceptionClass: REPO + 'ArtifactBinaryNotFoundException' },
  ENCRYPTION_NOT_SUPPORTED: { status: 400, errorCode: 'hawkbit.server.error.artifact.encryptionNotSupported', exceptionClass: 'org.eclipse.hawkbit.artifact.exception.ArtifactEncryptionUnsupportedException' },
  ARTIFACT_BINARY_DELETED: { status: 410, errorCode: 'hawkbit.server.error.artifact.binaryDeleted', exceptionClass: REPO + 'ArtifactBinaryGoneException' },

  // --- distribution sets and types ----------------------------------------------------------
  DS_INCOMPLETE: { status: 400, errorCode: 'hawkbit.server.error.distributionset.incomplete', exceptionClass: REPO + 'IncompleteDistributionSetException' },
  DS_INVALID: { status: 400, errorCode: 'hawkbit.server.error.distributionset.invalid', exceptionClass: REPO + 'InvalidDistributionSetException' },
  DS_TYPE_UNDEFINED: { status: 400, errorCode: 'hawkbit.server.error.distributionset.type.undefined', exceptionClass: REPO + 'DistributionSetTypeUndefinedException' },
  DS_MODULE_UNSUPPORTED: { status: 400, errorCode: 'hawkbit.server.error.distributionset.modules.unsupported', exceptionClass: REPO + 'UnsupportedSoftwareModuleForThisDistributionSetException' },
  TARGET_TYPE_IN_USE: { status: 409, errorCode: 'hawkbit.server.error.target.type.used', exceptionClass: REPO + 'TargetTypeInUseException' },
  TARGET_TYPE_INCOMPATIBLE: { status: 400, errorCode: 'hawkbit.server.error.target.type.incompatible', exceptionClass: REPO + 'IncompatibleTargetTypeException' },

  // --- actions, assignments, rollouts -------------------------------------------------------
  ACTION_NOT_CANCELABLE: { status: 405, errorCode: 'hawkbit.server.error.action.notCancelable', exceptionClass: REPO + 'CancelActionNotAllowedException' },
  ACTION_NOT_FORCE_QUITABLE: { status: 405, errorCode: 'hawkbit.server.error.action.notForceQuitable', exceptionClass: REPO + 'ForceQuitActionNotAllowedException' },
  ACTION_NOT_DELETABLE: { status: 405, errorCode: 'hawkbit.server.error.action.notDeletable', exceptionClass: REPO + 'DeleteActionNotAllowedException' },
  ACTION_CLOSED: { status: 410, errorCode: 'hawkbit.server.error.action.closed', exceptionClass: REPO + 'ActionClosedException' },
  MULTIASSIGNMENT: { status: 400, errorCode: 'hawkbit.server.error.multiAssignmentNotEnabled', exceptionClass: REPO + 'MultiAssignmentIsNotEnabledException' },
  MAINTENANCE_SCHEDULE_INVALID: { status: 400, errorCode: 'hawkbit.server.error.maintenanceScheduleInvalid', exceptionClass: REPO + 'InvalidMaintenanceScheduleException' },
  ROLLOUT_ILLEGAL_STATE: { status: 400, errorCode: 'hawkbit.server.error.rollout.illegalState', exceptionClass: REPO + 'RolloutIllegalStateException' },
  AUTO_ASSIGN_ACTION_TYPE_INVALID: { status: 400, errorCode: 'hawkbit.server.error.repo.invalidAutoAssignActionType', exceptionClass: REPO + 'InvalidAutoAssignActionTypeException' },

  // --- tenant configuration -----------------------------------------------------------------
  CONFIG_KEY_INVALID: { status: 400, errorCode: 'hawkbit.server.error.configKeyInvalid', exceptionClass: 'org.eclipse.hawkbit.tenancy.configuration.TenantConfigurationKeyNotFoundException' },
  CONFIG_VALUE_INVALID: { status: 400, errorCode: 'hawkbit.server.error.configValueInvalid', exceptionClass: 'org.eclipse.hawkbit.tenancy.configuration.validator.TenantConfigurationValidatorException' },
  CONFIG_CHANGE_NOT_ALLOWED: { status: 403, errorCode: 'hawkbit.server.error.repo.tenantConfigurationValueChangeNotAllowed', exceptionClass: REPO + 'TenantConfigurationValueChangeNotAllowedException' },

  // --- peregrine's own (no hawkBit counterpart) ---------------------------------------------
  STORE_UNAVAILABLE: { status: 503, errorCode: 'peregrine.server.error.storeUnavailable', exceptionClass: 'io.peregrine.StoreUnavailableException' },
  SHUTTING_DOWN: { status: 503, errorCode: 'peregrine.server.error.shuttingDown', exceptionClass: 'io.peregrine.ShuttingDownException' },
} as const satisfies Record<string, Spec>;

export type ErrorCode = keyof typeof ERRORS;

/** The status a code answers in a generation of the Management API (`compat.managementApi`). */
export function statusOf(code: ErrorCode, generation: ManagementApiGeneration = '0.9'): number {
  const spec: Spec = ERRORS[code];
  return generation === '1.x' ? (spec.status1x ?? spec.status) : spec.status;
}

/** An expected failure with a hawkBit error code. Anything else thrown becomes a 500. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** The caller's generation, when it changes the status (see statusOf); else the default's. */
  readonly generation: ManagementApiGeneration | undefined;
  constructor(
    code: ErrorCode, message: string,
    options?: ErrorOptions & { headers?: Readonly<Record<string, string>>; generation?: ManagementApiGeneration },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.headers = options?.headers;
    this.generation = options?.generation;
  }
  get status(): number {
    return statusOf(this.code, this.generation);
  }
}

export function notFound(entity: string, id: string | number): AppError {
  return new AppError('NOT_FOUND', `${entity} with given identifier {${id}} does not exist.`);
}

/** A race lost to another writer (the store's version check, a commit that kept failing): 409, the client retries. */
export function concurrent(entity: string, id?: string | number): AppError {
  return new AppError('CONCURRENT_MODIFICATION', `${entity}${id === undefined ? '' : ` ${id}`} is being modified concurrently; retry the request`);
}

/** A unique key another record holds (`index` and its `key`, parts joined by NUL in the store). */
export function keyTaken(entity: string, index: string, key: string): AppError {
  return new AppError('ALREADY_EXISTS', `${entity} already exists (${index} '${key.replaceAll('\u0000', ':')}' is taken)`);
}

export function badRequest(message: string): AppError {
  return new AppError('BODY_NOT_READABLE', message);
}

export function assertNever(x: never): never {
  throw new Error(`unhandled variant ${JSON.stringify(x)}`);
}
