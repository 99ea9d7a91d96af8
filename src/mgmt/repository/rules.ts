import { AppError } from '../../domain/errors.js';

/**
 * Guards shared by the repository writes.
 * A soft-deleted entity stays readable but takes no more changes: hawkBit's DeletedException (404).
 */
export function assertLive(entity: { readonly id: number; readonly deleted: boolean }, label: string): void {
  if (entity.deleted) throw new AppError('DELETED', `${label} with given identifier {${entity.id}} is deleted.`);
}

/** A locked module or set keeps its artifacts and modules: 423 (reference §3.9, §3.12). */
export function assertUnlocked(entity: { readonly id: number; readonly locked: boolean }, label: string, what: string): void {
  if (entity.locked) throw new AppError('LOCKED', `${label} ${entity.id} is locked: cannot ${what}`);
}
