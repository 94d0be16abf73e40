/** The identity-providers module of the HTTP adapter: external identity providers and account links. */
import type { HttpModule } from "../module.ts"
import { identityProviderEndpoints } from "./endpoints.ts"

/** The identity-providers module: its endpoints. */
export const identityProvidersHttp = {
  name: "identity-providers",
  endpoints: () => identityProviderEndpoints,
} satisfies HttpModule<never, unknown>
