/** The identity module of the HTTP adapter: passkey enrolment, sign-in, sessions and the hosted enrolment and sign-in pages. */
import type { HttpModule } from "../module.ts"
import { hostedPages } from "../pages/pages.ts"
import { identityEndpoints } from "./endpoints.ts"

/** The identity module: its endpoints and pages. */
export const identityHttp = {
  name: "identity",
  endpoints: () => identityEndpoints,
  pages: hostedPages,
} satisfies HttpModule<never, unknown>
