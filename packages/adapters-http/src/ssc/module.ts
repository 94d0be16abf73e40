/** The ssc module of the HTTP adapter: the signing-token flow and the signing frame an RP embeds. */
import type { HttpModule } from "../module.ts"
import { sscEndpoints } from "./endpoints.ts"
import { signingFramePages } from "./pages.ts"

/** The ssc module: its endpoints and pages. */
export const sscHttp = {
  name: "ssc",
  endpoints: () => sscEndpoints,
  pages: signingFramePages,
} satisfies HttpModule<never, unknown>
