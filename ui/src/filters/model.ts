/** A target filter query as /rest/v1/targetfilters answers it (reference §3.4: every field, nulls too). */
export interface TargetFilter {
  readonly id: number;
  readonly name: string;
  readonly query: string;
  readonly autoAssignDistributionSet: number | null;
  readonly autoAssignActionType: 'forced' | 'soft' | 'downloadonly' | null;
  readonly autoAssignWeight: number | null;
  readonly confirmationRequired: boolean | null;
  readonly lastModifiedAt?: number;
  readonly lastModifiedBy?: string;
}

export const FILTERS = '/rest/v1/targetfilters';
export const filterPath = (id: number): string => `${FILTERS}/${id}`;
