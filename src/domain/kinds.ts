import type { ActionRecord, ActionStatusRecord, actionSchema, actionStatusSchema } from './action.js';
import type { ActionEvent } from './action.events.js';
import type { IndexNames, KindSchema } from './record-schema.js';
import type {
  ArtifactRecord, DistributionSetRecord, DistributionSetTypeRecord, SoftwareModuleRecord, SoftwareModuleTypeRecord, TagRecord,
  artifactSchema, dsSchema, dsTypeSchema, smSchema, smTypeSchema, tagSchema,
} from './repository.js';
import type { RolloutGroupRecord, RolloutRecord, rolloutGroupSchema, rolloutMembersSchema, rolloutSchema } from './rollout.js';
import type { RolloutGroupEvent } from './rollout-group.machine.js';
import type { RolloutEvent } from './rollout.machine.js';
import type { TargetRecord, targetSchema } from './target.js';
import type { TargetEvent } from './target.machine.js';
import type { TargetFilterRecord, TargetTypeRecord, targetFilterSchema, targetTypeSchema } from './targeting.js';
import type { WebhookRecord, webhookCursorSchema, webhookDeliverySchema, webhookSchema } from './webhook.js';

/**
 * The record kinds, typed: a misspelt kind, or an event a kind's machine does not know, is a
 * compile error. Each constant (`TARGET = 'target'`, `DS = 'ds'`, ...) is declared beside its record.
 */

/**
 * Actors: records whose every change is a machine transition or a field edit through the actor
 * runtime (src/actors/runtime.ts), the only writer of these kinds. A new machine adds its line here.
 */
export interface ActorTypes {
  readonly target: { readonly record: TargetRecord; readonly event: TargetEvent };
  readonly action: { readonly record: ActionRecord; readonly event: ActionEvent };
  readonly rollout: { readonly record: RolloutRecord; readonly event: RolloutEvent };
  readonly rolloutgroup: { readonly record: RolloutGroupRecord; readonly event: RolloutGroupEvent };
}
export type ActorKind = keyof ActorTypes;
export type RecordOf<K extends ActorKind> = ActorTypes[K]['record'];
export type EventOf<K extends ActorKind> = ActorTypes[K]['event'];

/**
 * Plain records: changed with compare-and-set by the service that owns them (the Management API
 * through src/mgmt/kit/store.ts). The status history of actions is written by the runtime with them.
 */
export interface PlainTypes {
  readonly smtype: SoftwareModuleTypeRecord;
  readonly sm: SoftwareModuleRecord;
  readonly artifact: ArtifactRecord;
  readonly dstype: DistributionSetTypeRecord;
  readonly ds: DistributionSetRecord;
  readonly targettag: TagRecord;
  readonly dstag: TagRecord;
  readonly targettype: TargetTypeRecord;
  readonly targetfilter: TargetFilterRecord;
  readonly webhook: WebhookRecord;
}
export type PlainKind = keyof PlainTypes;

/** Every record kind whose type is known here, to read it typed. */
export type RecordTypes = PlainTypes & { readonly [K in ActorKind]: RecordOf<K> } & { readonly actionstatus: ActionStatusRecord };
export type RecordKind = keyof RecordTypes;

/** hawkBit's entity name of each kind, as error messages name it (`Target with given identifier {x} ...`). */
export const ENTITY: { readonly [K in RecordKind]: string } = {
  target: 'Target',
  action: 'Action',
  actionstatus: 'ActionStatus',
  smtype: 'SoftwareModuleType',
  sm: 'SoftwareModule',
  artifact: 'Artifact',
  dstype: 'DistributionSetType',
  ds: 'DistributionSet',
  targettag: 'TargetTag',
  dstag: 'DistributionSetTag',
  targettype: 'TargetType',
  targetfilter: 'TargetFilterQuery',
  webhook: 'Webhook',
  rollout: 'Rollout',
  rolloutgroup: 'RolloutGroup',
};

/**
 * The schema of every indexed kind, whose type declares its index names (beside its record). Reads of
 * the Store port take the names of the kind they name (src/store/port.ts): a misspelt index, or one
 * the kind does not have, is a compile error wherever the kind is named by its constant.
 */
export interface IndexedKinds {
  readonly target: typeof targetSchema;
  readonly action: typeof actionSchema;
  readonly actionstatus: typeof actionStatusSchema;
  readonly smtype: typeof smTypeSchema;
  readonly sm: typeof smSchema;
  readonly artifact: typeof artifactSchema;
  readonly dstype: typeof dsTypeSchema;
  readonly ds: typeof dsSchema;
  readonly targettag: typeof tagSchema;
  readonly dstag: typeof tagSchema;
  readonly targettype: typeof targetTypeSchema;
  readonly targetfilter: typeof targetFilterSchema;
  readonly rollout: typeof rolloutSchema;
  readonly rolloutgroup: typeof rolloutGroupSchema;
  readonly rolloutmembers: typeof rolloutMembersSchema;
  readonly webhook: typeof webhookSchema;
  readonly webhookdelivery: typeof webhookDeliverySchema;
  readonly webhookcursor: typeof webhookCursorSchema;
}

type NamesOf<K extends string> =
  K extends keyof IndexedKinds ? (IndexedKinds[K] extends KindSchema<never, infer I> ? I : never) : IndexNames;
/** The unique indexes of kind K; any name for a kind not known here (a kind given as a plain string). */
export type UniqueIndexOf<K extends string> = NamesOf<K>['unique'];
/** The multi indexes of kind K; any name for a kind not known here. */
export type MultiIndexOf<K extends string> = NamesOf<K>['multi'];
