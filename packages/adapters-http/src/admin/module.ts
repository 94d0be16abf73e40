/** The admin module of the HTTP adapter: the administrator API (`/admin`) and its console page. */
import type { HttpModule } from "../module.ts"
import type { KycModuleOptions } from "../kyc/module.ts"
import { consoleEndpointsFor } from "./console-endpoints.ts"
import { adminEndpointsFor } from "./endpoints.ts"
import { adminConsolePages } from "./pages.ts"

/** The admin module: its endpoints and pages. */
export const adminHttp = {
  name: "admin",
  endpoints: (options: { readonly adminToken?: string | undefined } & KycModuleOptions) => [
    ...adminEndpointsFor({ adminToken: options.adminToken }),
    ...consoleEndpointsFor({
      adminToken: options.adminToken,
      kyc: { providers: options.kycProviders, ...(options.kycSettings === undefined ? {} : { settings: options.kycSettings }) },
    }),
  ],
  pages: adminConsolePages,
} satisfies HttpModule<never, unknown>
