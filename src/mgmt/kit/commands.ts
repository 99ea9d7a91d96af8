import type { EffectDispatcher } from '../../actors/dispatcher.js';
import type { ActorSender } from '../../actors/roles.js';
import { concurrent, notFound, type AppError } from '../../domain/errors.js';
import { ENTITY, type ActorKind, type EventOf, type RecordOf } from '../../domain/kinds.js';
import type { Tenant } from '../../store/port.js';

/** What a command on an actor needs: the runtime to send, the dispatcher to wait for the effects. */
export interface CommandDeps {
  readonly runtime: ActorSender;
  readonly dispatcher: Pick<EffectDispatcher, 'settle'>;
}

/**
 * A Management command on one actor (cancel an action, start a rollout, ...): the event to its
 * machine. Answers once the effects it caused were handled, so the next request sees them. When
 * the machine does not take the event in the actor's state, `refused` is the error (none: the
 * actor is answered as it is).
 */
export async function command<K extends ActorKind>(
  deps: CommandDeps, tenant: Tenant, kind: K, id: number, event: EventOf<K>, refused?: () => AppError,
): Promise<RecordOf<K>> {
  const result = await deps.runtime.send(tenant, kind, id, event);
  switch (result.kind) {
    case 'committed':
      await deps.dispatcher.settle(result.effectIds);
      return result.record;
    case 'ignored':
      if (refused !== undefined) throw refused();
      return result.record;
    case 'missing':
      throw notFound(ENTITY[kind], id);
    case 'duplicate':
    case 'contended':
      throw concurrent(ENTITY[kind], id);
  }
}
