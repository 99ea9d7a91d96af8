/**
 * What a caller may ask of the actor runtime, by role. A module or function declares the role it plays
 * instead of picking methods one by one; the composition root passes the one runtime for all of them.
 */
import type { ActorRuntime } from './runtime.js';

/** Delivers events to actors: state changes only this way. */
export type ActorSender = Pick<ActorRuntime, 'send'>;

/** Creates actors, edits their fields, removes them, and sends them events (resource routes, device operations). */
export type ActorEditor = Pick<ActorRuntime, 'send' | 'create' | 'creation' | 'update' | 'updateEach' | 'updateJointly' | 'remove'>;

/**
 * An editor that also folds an event's transition of one actor into another commit, or commits events to
 * several actors together (the rollout engine's group starts).
 */
export type ActorComposer = Pick<
  ActorRuntime, 'send' | 'create' | 'creation' | 'update' | 'updateEach' | 'updateJointly' | 'remove' | 'transition' | 'sendJointly'
>;
