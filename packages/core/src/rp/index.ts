/** Public surface of the relying-party capability: registration, administration, plans, LOA, quotas, organisation KYC. */
export { RpCommand } from "./commands.ts"
export type { RpEvent } from "./commands.ts"
export {
  AdminCheckRequest,
  AdminCheckResponse,
  AdminListResponse,
  AdminOneResponse,
  AdminRelyingPartyView,
  AdminRotateRequest,
  ListRelyingPartiesResponse,
  OrganisationCheckView,
  OrganisationDetailsFields,
  OrganisationRecordResponse,
  RegisterRelyingPartyRequest,
  RegisterRelyingPartyResponse,
  RelyingPartyView,
  RotateSecretsRequest,
  RotationAnswer,
  SecretKindSchema,
  SubmitOrganisationRequest,
  UpdateRelyingPartyRequest,
} from "./contract.ts"
export {
  BatchSizeExceeded,
  DailySigningLimitExceeded,
  InvalidClient,
  InvalidClientCredentials,
  Loa4RequiresKycVerifiedRp,
  LoaExceedsMaximum,
  NotRpContactAccount,
  RateLimitExceeded,
  RpNotApproved,
  RpOriginNotAuthorized,
  RpSettingLocked,
  RpTransitionNotAllowed,
  UnknownRpClientId,
  rpErrors,
} from "./errors.ts"
export type { RpError } from "./errors.ts"
export { requireLoa } from "./loa.ts"
export {
  AllowanceSchema,
  Loa,
  OrganisationCheck,
  OrganisationCheckStatus,
  OrganisationDocument,
  PlanId,
  RelyingParty,
  RetiredSecret,
  RpStatus,
} from "./model.ts"
export type { NewOrganisationCheck, NewRelyingParty } from "./model.ts"
export { organisationChecks, recordOrganisationCheck } from "./organisation.ts"
export type { OrganisationCheckInput, OrganisationDetails } from "./organisation.ts"
export { planInForce } from "./plan-in-force.ts"
export type { PlanInForce } from "./plan-in-force.ts"
export { DEFAULT_ALLOWANCE, PLANS } from "./plans.ts"
export type { Allowance, Plan } from "./plans.ts"
export { QuotaCounters, RelyingParties, RpOrganisationChecks } from "./ports.ts"
export type { QuotaConsumption } from "./ports.ts"
export { MINUTE_MS, countRequest, signaturesUsedToday } from "./quota.ts"
export {
  administerRelyingParty,
  authenticateClient,
  authenticateSsc,
  findRelyingParty,
  getRelyingParty,
  registerRelyingParty,
  rotateSecrets,
} from "./relying-parties.ts"
export type { RegisterRelyingParty, RelyingPartyWithSecrets, SecretKind } from "./relying-parties.ts"
