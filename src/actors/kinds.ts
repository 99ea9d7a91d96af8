import { ACTION, ACTION_STATUS, isActive, type ActionStatusRecord } from '../domain/action.js';
import { ACTION_MACHINE_VERSION, actionMachine } from '../domain/action.machine.js';
import { TARGET } from '../domain/target.js';
import { TARGET_MACHINE_VERSION, targetMachine } from '../domain/target.machine.js';
import type { ActorDefinition, ActorDefinitions } from './definition.js';

const targetActor: ActorDefinition<typeof TARGET> = {
  kind: TARGET,
  machine: targetMachine,
  stateField: 'updateStatus',
  machineVersion: TARGET_MACHINE_VERSION,
};

const actionActor: ActorDefinition<typeof ACTION> = {
  kind: ACTION,
  machine: actionMachine,
  stateField: 'status',
  machineVersion: ACTION_MACHINE_VERSION,
  finalize: (a) => (a.active === isActive(a.status) ? a : { ...a, active: isActive(a.status) }),
  entries: {
    kind: ACTION_STATUS,
    build: (a, p, id): ActionStatusRecord => ({
      id, actionId: a.id, type: p.type, messages: p.messages, reportedAt: a.lastModifiedAt, timestamp: p.timestamp, code: p.code,
    }),
  },
};

/** Every actor kind's definition: what the runtime is built with. */
export const ACTORS: ActorDefinitions = { [TARGET]: targetActor, [ACTION]: actionActor };
