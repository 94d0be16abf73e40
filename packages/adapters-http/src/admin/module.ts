/** The admin module of the HTTP adapter: the administrator API (`/admin`) and its console page. */
import type { HttpModule } from "../module.ts"
import { adminEndpointsFor } from "./endpoints.ts"
import { adminConsolePages } from "./pages.ts"

/** The admin module: its endpoints and pages. */
export const adminHttp = {
  name: "admin",
  endpoints: (options: { readonly adminToken?: string | undefined }) => adminEndpointsFor({ adminToken: options.adminToken }),
  pages: adminConsolePages,
} satisfies HttpModule<never, unknown>
