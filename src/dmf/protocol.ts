/**
 * The DMF wire vocabulary: header keys, message types, event topics, action statuses, the exchange
 * devices publish to, and the JSON bodies peregrine accepts. Names are hawkBit's, exactly.
 * @see reference/hawkbit-api.md §9; hawkBit docs/device-management-federation-api.md
 */
import { z } from 'zod';

/** The fanout exchange DMF clients publish to; bound to the receiver queue. */
export const DMF_EXCHANGE = 'dmf.exchange';

export const HEADER = {
  type: 'type',
  tenant: 'tenant',
  thingId: 'thingId',
  sender: 'sender',
  topic: 'topic',
  contentType: 'content-type',
} as const;

/**
 * The `__TypeId__` header Spring's Jackson converter writes on the JSON messages hawkBit sends: the
 * class of the body (messages without a body, such as THING_DELETED or PING_RESPONSE, carry none).
 * @see hawkBit AmqpMessageDispatcherService, DmfMessageConverter
 */
export const TYPE_ID_HEADER = '__TypeId__';
const MODEL = 'org.eclipse.hawkbit.dmf.json.model';
export const TYPE_ID = {
  action: `${MODEL}.DmfActionRequest`,
  downloadAndUpdate: `${MODEL}.DmfDownloadAndUpdateRequest`,
  confirm: `${MODEL}.DmfConfirmRequest`,
  batch: `${MODEL}.DmfBatchDownloadAndUpdateRequest`,
} as const;

/** peregrine's own header: how often a message was tried before it went back to the receiver queue (inbound.ts). */
export const ATTEMPTS_HEADER = 'x-peregrine-attempts';

export type EventTopic =
  | 'UPDATE_ACTION_STATUS' | 'DOWNLOAD_AND_INSTALL' | 'CANCEL_DOWNLOAD' | 'UPDATE_ATTRIBUTES' | 'UPDATE_AUTO_CONFIRM' | 'DOWNLOAD'
  | 'REQUEST_ATTRIBUTES_UPDATE' | 'MULTI_ACTION' | 'BATCH_DOWNLOAD' | 'BATCH_DOWNLOAD_AND_INSTALL' | 'CONFIRM';

export const DMF_ACTION_STATUSES = [
  'DOWNLOAD', 'RETRIEVED', 'RUNNING', 'FINISHED', 'ERROR', 'WARNING', 'CANCELED', 'CANCEL_REJECTED', 'DOWNLOADED', 'CONFIRMED', 'DENIED',
] as const;
export type DmfActionStatus = (typeof DMF_ACTION_STATUSES)[number];

/** hawkBit's remark when a device activates auto-confirmation over DMF without one (AmqpMessageHandlerService). */
export const DMF_FALLBACK_REMARK = 'Activated using Device Management Federation API.';

// Jackson binds `Map<String, String>` leniently: numbers and booleans become their text. So do we.
const text = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const optionalText = text.nullish().transform((v) => v ?? null);
const mode = z.enum(['MERGE', 'REPLACE', 'REMOVE']).nullish().transform((v) => v ?? null);

/** DmfAttributeUpdate: `{attributes, mode}`; mode absent means MERGE. */
export const attributeUpdateBody = z.looseObject({
  attributes: z.record(z.string(), text.nullable()).nullish().transform((v) => v ?? {}),
  mode,
});
export type AttributeUpdateBody = z.output<typeof attributeUpdateBody>;

/** DmfCreateThing: every field optional. */
export const createThingBody = z.looseObject({
  name: optionalText,
  type: optionalText,
  attributeUpdate: attributeUpdateBody.nullish().transform((v) => v ?? null),
});

/** DmfActionUpdateStatus: actionId and actionStatus are required. */
export const actionUpdateStatusBody = z.looseObject({
  actionId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  actionStatus: z.enum(DMF_ACTION_STATUSES),
  timestamp: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullish().transform((v) => v ?? null),
  softwareModuleId: z.coerce.number().int().nullish(),
  message: z.array(text).nullish().transform((v) => v ?? []),
  code: z.coerce.number().int().min(-2147483648).max(2147483647).nullish().transform((v) => v ?? null),
});
export type ActionUpdateStatusBody = z.output<typeof actionUpdateStatusBody>;

/** DmfAutoConfirmation. */
export const autoConfirmBody = z.looseObject({
  enabled: z.boolean(),
  initiator: optionalText,
  remark: optionalText,
});
