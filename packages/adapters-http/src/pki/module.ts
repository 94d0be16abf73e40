/** The pki module of the HTTP adapter: certificates, revocation, OCSP, validation and timestamps. */
import type { HttpModule } from "../module.ts"
import { certificateEndpoints } from "./endpoints.ts"
import { timestampEndpoints } from "./timestamp-endpoints.ts"

/** The pki module: its endpoints. */
export const pkiHttp = {
  name: "pki",
  endpoints: () => [...certificateEndpoints, ...timestampEndpoints],
} satisfies HttpModule<never, unknown>
