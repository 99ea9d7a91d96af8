import { ACTION, ACTION_STATUS, isActive, type ActionStatusRecord } from '../domain/action.js';
import { ACTION_MACHINE_VERSION, actionMachine } from '../domain/action.machine.js';
import { ROLLOUT, ROLLOUT_GROUP } from '../domain/rollout.js';
import { actionCounterDeltas } from '../domain/rollout-counts.js';
import { ROLLOUT_GROUP_MACHINE_VERSION, rolloutGroupMachine } from '../domain/rollout-group.machine.js';
import { ROLLOUT_MACHINE_VERSION, rolloutMachine } from '../domain/rollout.machine.js';
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
  // an action of a rollout counts under its group and its rollout (the engine evaluates the counts)
  counters: actionCounterDeltas,
  // its end moves its target (in sync, error, downloaded) in the same commit: no queue round, and the
  // device's next request sees both
  follows: [TARGET],
  entries: {
    kind: ACTION_STATUS,
    build: (a, p, id): ActionStatusRecord => ({
      id, actionId: a.id, type: p.type, messages: p.messages, reportedAt: a.lastModifiedAt, timestamp: p.timestamp, code: p.code,
    }),
  },
};

const rolloutActor: ActorDefinition<typeof ROLLOUT> = {
  kind: ROLLOUT,
  machine: rolloutMachine,
  stateField: 'status',
  machineVersion: ROLLOUT_MACHINE_VERSION,
};

const rolloutGroupActor: ActorDefinition<typeof ROLLOUT_GROUP> = {
  kind: ROLLOUT_GROUP,
  machine: rolloutGroupMachine,
  stateField: 'status',
  machineVersion: ROLLOUT_GROUP_MACHINE_VERSION,
};

/** Every actor kind's definition: what the runtime is built with. */
export const ACTORS: ActorDefinitions = {
  [TARGET]: targetActor, [ACTION]: actionActor, [ROLLOUT]: rolloutActor, [ROLLOUT_GROUP]: rolloutGroupActor,
};
