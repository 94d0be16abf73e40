/** The observability module of the HTTP adapter: `/metrics` (Prometheus text, administrator token). */
import type { HttpModule } from "../module.ts"
import { metricsEndpointFor, type OtherWorkersMetrics } from "./endpoints.ts"

/** The observability module: its endpoint. */
export const observabilityHttp = {
  name: "observability",
  endpoints: (options: { readonly adminToken?: string | undefined; readonly metricsOfOtherWorkers?: (() => Promise<OtherWorkersMetrics>) | undefined }) => [
    metricsEndpointFor({ adminToken: options.adminToken, metricsOfOtherWorkers: options.metricsOfOtherWorkers }),
  ],
} satisfies HttpModule<never, unknown>
