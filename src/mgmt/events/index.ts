import type { AppModule } from '../../module.js';
import { eventRoutes, type EventDeps } from './event-routes.js';

/** Live events (SSE and WebSocket) from the store's journal; stops the hub's readers on shutdown. */
export function eventsModule(deps: EventDeps): AppModule {
  return { name: 'events', routes: eventRoutes(deps), stop: async () => deps.events.close() };
}
