/** The rp module of the HTTP adapter: relying-party self-service. */
import type { HttpModule } from "../module.ts"
import { relyingPartyEndpoints } from "./endpoints.ts"

/** The rp module: its endpoints. */
export const rpHttp = {
  name: "rp",
  endpoints: () => relyingPartyEndpoints,
} satisfies HttpModule<never, unknown>
