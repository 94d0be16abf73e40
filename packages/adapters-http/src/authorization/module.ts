/** The authorization module of the HTTP adapter: step-up approvals. */
import type { HttpModule } from "../module.ts"
import { authorizationEndpoints } from "./endpoints.ts"

/** The authorization module: its endpoints. */
export const authorizationHttp = {
  name: "authorization",
  endpoints: () => authorizationEndpoints,
} satisfies HttpModule<never, unknown>
