/**
 * Quotas (reference §8, hawkbit.server.security.dos.*). Exceeding one answers 403 with the quota error
 * code (spec section 7; 429 with compat.managementApi 1.x). Every value can be changed in config.yaml
 * under `quotas:`, where the config schema checks it.
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
  /** peregrine's own: webhooks per tenant (each event is sent to each of them). */
  maxWebhooksPerTenant: 20,
} as const;

export type Quotas = { readonly [K in keyof typeof QUOTA_DEFAULTS]: number };
