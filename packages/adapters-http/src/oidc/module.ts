/** The oidc module of the HTTP adapter: the OpenID provider. */
import type { HttpModule } from "../module.ts"
import { oidcEndpoints } from "./endpoints.ts"

/** The oidc module: its endpoints. */
export const oidcHttp = {
  name: "oidc",
  endpoints: () => oidcEndpoints,
} satisfies HttpModule<never, unknown>
