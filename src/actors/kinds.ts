import { ACTION, ACTION_STATUS, isActive, type ActionRecord, type ActionStatusRecord } from '../domain/action.js';
import { ACTION_MACHINE_VERSION, actionMachine, type EntryParams } from '../domain/action.machine.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import { TARGET_MACHINE_VERSION, targetMachine } from '../domain/target.machine.js';
import type { ActorDefinition } from './definition.js';

export const targetActor: ActorDefinition<TargetRecord> = {
  kind: TARGET,
  machine: targetMachine,
  stateField: 'updateStatus',
  machineVersion: TARGET_MACHINE_VERSION,
};

export const actionActor: ActorDefinition<ActionRecord> = {
  kind: ACTION,
  machine: actionMachine,
  stateField: 'status',
  machineVersion: ACTION_MACHINE_VERSION,
  finalize: (a) => (a.active === isActive(a.status) ? a : { ...a, active: isActive(a.status) }),
  entries: {
    kind: ACTION_STATUS,
    build: (a, params, id): ActionStatusRecord => {
      const p = params as EntryParams;
      return { id, actionId: a.id, type: p.type, messages: p.messages, reportedAt: a.lastModifiedAt, timestamp: p.timestamp, code: p.code };
    },
  },
};

export const ACTORS: readonly ActorDefinition[] = [targetActor as unknown as ActorDefinition, actionActor as unknown as ActorDefinition];
