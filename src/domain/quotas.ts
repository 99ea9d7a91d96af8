/**
 * Quotas (reference §8, hawkbit.server.security.dos.*). Exceeding one answers 403 with the quota error
 * code (spec section 7). Every value can be changed in config.yaml under `quotas:`.
 */
export const QUOTA_DEFAULTS = {
  maxStatusEntriesPerAction: 1000,
  maxAttributeEntriesPerTarget: 100,
  maxRolloutGroupsPerRollout: 500,
  maxMessagesPerActionStatus: 50,
  maxMetaDataEntriesPerSoftwareModule: 100,
  maxMetaDataEntriesPerDistributionSet: 100,
  maxMetaDataEntriesPerTarget: 100,
  maxSoftwareModulesPerDistributionSet: 100,
  maxSoftwareModuleTypesPerDistributionSetType: 50,
  maxArtifactsPerSoftwareModule: 50,
  maxTargetsPerRolloutGroup: 20_000,
  maxActionsPerTarget: 2000,
  maxTargetDistributionSetAssignmentsPerManualAssignment: 5000,
  maxTargetsPerAutoAssignment: 20_000,
  maxArtifactSize: 1_073_741_824, // 1 GiB
  maxArtifactStorage: 21_474_836_480, // 20 GiB per tenant
  maxDistributionSetTypesPerTargetType: 50,
} as const;

export type Quotas = { readonly [K in keyof typeof QUOTA_DEFAULTS]: number };

/** Defaults overridden by the positive whole numbers given in config; unknown keys are an error. */
export function resolveQuotas(overrides: Readonly<Record<string, unknown>>): Quotas {
  const out: Record<string, number> = { ...QUOTA_DEFAULTS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(QUOTA_DEFAULTS, key)) {
      throw new Error(`config.yaml: quotas.${key}: unknown quota; known: ${Object.keys(QUOTA_DEFAULTS).join(', ')}`);
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new Error(`config.yaml: quotas.${key}: expected a positive whole number, got ${JSON.stringify(value)}`);
    }
    out[key] = value;
  }
  return out as Quotas;
}
