/** The pades module of the HTTP adapter: PDF signing (PAdES). */
import type { HttpModule } from "../module.ts"
import { padesEndpoints } from "./endpoints.ts"

/** The pades module: its endpoints. */
export const padesHttp = {
  name: "pades",
  endpoints: () => padesEndpoints,
} satisfies HttpModule<never, unknown>
