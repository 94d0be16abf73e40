/** The kyc module of the HTTP adapter: identity verification (`/kyc/*`), the phone handoff and the capture pages. */
import { DEFAULT_KYC_SETTINGS } from "@signet/core"
import type { HttpModule } from "../module.ts"
import { type KycEndpointOptions, kycEndpointsFor } from "./endpoints.ts"
import { kycHandoffEndpointsFor } from "./handoff-endpoints.ts"
import { kycCapturePages } from "./pages.ts"

/** The engine options the KYC endpoints read. */
export interface KycModuleOptions {
  readonly kycSettings?: typeof DEFAULT_KYC_SETTINGS
  /** resolved by the engine: the given providers, the sandbox ones, or null (KYC disabled) */
  readonly kycProviders: Exclude<KycEndpointOptions["providers"], undefined>
}

/** The kyc module: its endpoints and pages. */
export const kycHttp = {
  name: "kyc",
  endpoints: (options: KycModuleOptions) => {
    const kyc = { settings: options.kycSettings ?? DEFAULT_KYC_SETTINGS, providers: options.kycProviders }
    return [...kycEndpointsFor(kyc), ...kycHandoffEndpointsFor(kyc)]
  },
  pages: kycCapturePages,
} satisfies HttpModule<never, unknown>
