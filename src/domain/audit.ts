/** Audit fields every entity carries (spec 2.1). Times are ms since the epoch, UTC. */
export interface Audit {
  readonly createdBy: string;
  readonly createdAt: number;
  readonly lastModifiedBy: string;
  readonly lastModifiedAt: number;
}

export function created(by: string, at: number): Audit {
  return { createdBy: by, createdAt: at, lastModifiedBy: by, lastModifiedAt: at };
}

export function touched<T extends Audit>(entity: T, by: string, at: number): T {
  return { ...entity, lastModifiedBy: by, lastModifiedAt: at };
}
