/** The AppError a call throws; anything else it throws, or no throw at all, fails the test. */
import { AppError } from '../../src/domain/errors.js';

export function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
