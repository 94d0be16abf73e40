/** The observability module of the HTTP adapter: `/metrics` (Prometheus text, administrator token). */
import type { HttpModule } from "../module.ts"
import { metricsEndpointFor } from "./endpoints.ts"

/** The observability module: its endpoint. */
export const observabilityHttp = {
  name: "observability",
  endpoints: (options: { readonly adminToken?: string | undefined }) => [metricsEndpointFor({ adminToken: options.adminToken })],
} satisfies HttpModule<never, unknown>
