import { assign, setup } from 'xstate';
import type { TargetRecord } from './target.js';

/**
 * The target's updateStatus as a machine. Context is the persisted TargetRecord; the state value is
 * its `updateStatus`. Events come from devices (`device.*`), the Management API (`mgmt.*`) and,
 * through the effects queue, from the target's actions (`action.*`).
 * @see reference/hawkbit-api.md §4.3
 */
export type TargetEvent =
  | { readonly type: 'device.polled'; readonly at: number }
  | { readonly type: 'mgmt.assigned'; readonly ds: number; readonly at: number; readonly by: string }
  | { readonly type: 'mgmt.assignedOffline'; readonly ds: number; readonly action: number; readonly at: number; readonly by: string }
  /** `verify`: of a verifyInstall rollout, its install waits for the device to show the set (verifyAction; install-check.ts). */
  | { readonly type: 'action.finished'; readonly ds: number; readonly action: number; readonly at: number; readonly reportedAt: number; readonly downloadOnly: boolean; readonly verify?: boolean }
  /** A verifyInstall action's install was confirmed (or it is gone): the target waits for nothing more. */
  | { readonly type: 'action.verified'; readonly action: number; readonly at: number }
  | { readonly type: 'action.downloaded'; readonly ds: number; readonly at: number }
  | { readonly type: 'action.failed'; readonly ds: number; readonly at: number }
  /** All of the target's active actions ended by cancellation; `nextDs` is the DS of the oldest one still active. */
  | { readonly type: 'action.canceled'; readonly nextDs: number | null; readonly at: number }
  /**
   * An action of the target is deleted (Management or cleanup); when it is the installed one, the
   * installed action becomes `replacement`: the newest remaining finished action of the installed
   * DS (hawkBit's findInstalledActionByTarget), or none. The installed DS stays.
   */
  | { readonly type: 'mgmt.actionDeleted'; readonly action: number; readonly replacement: number | null; readonly at: number };

/** Bump when states or context change shape; stored with each snapshot. */
export const TARGET_MACHINE_VERSION = 1;

export const targetMachine = setup({
  types: { context: {} as TargetRecord, events: {} as TargetEvent, input: {} as TargetRecord },
  actions: {
    assign: assign(({ context, event }) =>
      event.type === 'mgmt.assigned' ? { assignedDs: event.ds, lastModifiedAt: event.at, lastModifiedBy: event.by } : context,
    ),
    offline: assign(({ context, event }) =>
      event.type === 'mgmt.assignedOffline'
        ? {
          assignedDs: event.ds, installedDs: event.ds, installedAt: event.at, installedAction: event.action,
          lastModifiedAt: event.at, lastModifiedBy: event.by,
        }
        : context,
    ),
    install: assign(({ context, event }) => {
      if (event.type !== 'action.finished') return context;
      // a late report older than the current installation does not roll the installed DS back
      const newer = context.installedAt === null || event.reportedAt >= context.installedAt;
      return {
        installedDs: newer ? event.ds : context.installedDs,
        installedAt: newer ? event.reportedAt : context.installedAt,
        installedAction: newer ? event.action : context.installedAction,
        assignedDs: event.downloadOnly ? event.ds : context.assignedDs,
        requestAttributes: true,
        lastModifiedAt: event.at,
        verifyAction: event.verify === true ? event.action : null,
      };
    }),
    verified: assign({ verifyAction: null }),
    downloaded: assign(({ event }) => ({ requestAttributes: true, lastModifiedAt: event.at })),
    failed: assign(({ event }) => ({ assignedDs: null, lastModifiedAt: event.at, verifyAction: null })),
    installedDeleted: assign(({ event }) => (event.type === 'mgmt.actionDeleted' ? { installedAction: event.replacement } : {})),
    canceled: assign(({ context, event }) =>
      event.type === 'action.canceled'
        ? { assignedDs: event.nextDs ?? context.installedDs, lastModifiedAt: event.at }
        : context,
    ),
  },
  guards: {
    inSyncAfterInstall: ({ context, event }) => {
      if (event.type !== 'action.finished') return false;
      const installed = context.installedAt === null || event.reportedAt >= context.installedAt ? event.ds : context.installedDs;
      const assigned = event.downloadOnly ? event.ds : context.assignedDs;
      return assigned === installed;
    },
    /** The same action reported again: nothing to do. */
    alreadyInstalled: ({ context, event }) => event.type === 'action.finished' && context.installedAction === event.action,
    verifiesAction: ({ context, event }) => event.type === 'action.verified' && context.verifyAction === event.action,
    nothingLeft: ({ event }) => event.type === 'action.canceled' && event.nextDs === null,
    installedDeleted: ({ context, event }) => event.type === 'mgmt.actionDeleted' && context.installedAction === event.action,
  },
}).createMachine({
  id: 'target',
  initial: 'unknown',
  context: ({ input }) => input,
  on: {
    'mgmt.assigned': { target: '.pending', actions: 'assign' },
    'mgmt.assignedOffline': { target: '.in_sync', actions: 'offline' },
    'action.finished': [
      { guard: 'alreadyInstalled' },
      { guard: 'inSyncAfterInstall', target: '.in_sync', actions: 'install' },
      { actions: 'install' },
    ],
    'action.downloaded': { target: '.in_sync', actions: 'downloaded' },
    'action.verified': { guard: 'verifiesAction', actions: 'verified' },
    'action.failed': { target: '.error', actions: 'failed' },
    'action.canceled': [{ guard: 'nothingLeft', target: '.in_sync', actions: 'canceled' }, { actions: 'canceled' }],
    'mgmt.actionDeleted': { guard: 'installedDeleted', actions: 'installedDeleted' },
  },
  states: {
    unknown: { on: { 'device.polled': 'registered' } },
    registered: {},
    pending: {},
    in_sync: {},
    error: {},
  },
});
