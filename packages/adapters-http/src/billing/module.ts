/** The billing module of the HTTP adapter: plans, checkouts and usage. */
import type { HttpModule } from "../module.ts"
import { planEndpoints } from "./endpoints.ts"

/** The billing module: its endpoints. */
export const billingHttp = {
  name: "billing",
  endpoints: () => planEndpoints,
} satisfies HttpModule<never, unknown>
