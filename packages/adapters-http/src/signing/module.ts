/** The signing module of the HTTP adapter: hash signing requests and batches. */
import type { HttpModule } from "../module.ts"
import { signingEndpoints } from "./endpoints.ts"

/** The signing module: its endpoints. */
export const signingHttp = {
  name: "signing",
  endpoints: () => signingEndpoints,
} satisfies HttpModule<never, unknown>
