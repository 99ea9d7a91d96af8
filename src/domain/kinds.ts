import type { ActionRecord, ActionStatusRecord } from './action.js';
import type { ActionEvent } from './action.machine.js';
import type {
  ArtifactRecord, DistributionSetRecord, DistributionSetTypeRecord, SoftwareModuleRecord, SoftwareModuleTypeRecord, TagRecord,
} from './repository.js';
import type { RolloutGroupRecord, RolloutRecord } from './rollout.js';
import type { RolloutGroupEvent } from './rollout-group.machine.js';
import type { RolloutEvent } from './rollout.machine.js';
import type { TargetRecord } from './target.js';
import type { TargetEvent } from './target.machine.js';
import type { TargetFilterRecord, TargetTypeRecord } from './targeting.js';

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
  rollout: 'Rollout',
  rolloutgroup: 'RolloutGroup',
};
