/**
 * JSON logs on stdout (pino). The level comes from config (`log.level`, or PEREGRINE_LOG_LEVEL
 * through the config loader).
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const options = { level, base: { name: 'peregrine' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination === undefined ? pino(options) : pino(options, destination);
}
