/** Public surface of the identity-provider capability: external OpenID providers, sign-in through them and account links. */
export {
  IdentityProviderView,
  LinkConfirmRequest,
  LinkConfirmResponse,
  LinkRequestRequest,
  LinkRequestResponse,
  ListProvidersResponse,
  RegisterProviderRequest,
  RemoveProviderResponse,
  SignInProvidersResponse,
  UnlinkResponse,
} from "./contract.ts"
export {
  ExternalAccountCreationRefused,
  ExternalEmailNotVerified,
  ExternalIdentityLinkedElsewhere,
  ExternalSignInFailed,
  ExternalSignInStateInvalid,
  IdentityProviderIssuerMismatch,
  IdentityProviderUnavailable,
  NotRpContactForProviders,
  identityProviderErrors,
} from "./errors.ts"
export type { IdentityProviderError } from "./errors.ts"
export {
  EXTERNAL_CALLBACK_PATH,
  completeExternalSignIn,
  confirmLink,
  linkedIdentitiesOf,
  requestLinkConfirmation,
  safeReturnTo,
  startExternalSignIn,
  unlinkIdentity,
} from "./external-sign-in.ts"
export type { ExternalCallback, ExternalOutcome, ExternalStart } from "./external-sign-in.ts"
export { ExternalLogin, IdentityLink, IdentityProvider, LinkOffer } from "./model.ts"
export { ExternalLogins, ExternalProviderClient, IdentityLinks, IdentityProviders, LinkOffers } from "./ports.ts"
export type { ExternalTokenAnswer } from "./ports.ts"
export { listIdentityProviders, providersForSignIn, registerIdentityProvider, removeIdentityProvider } from "./registry.ts"
export type { ProviderManager, ProviderRegistration, ProviderView } from "./registry.ts"
