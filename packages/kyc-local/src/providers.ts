/** Choosing sandbox or local adapters per KYC port. */
import { DocumentReaderSandbox, FaceMatcherSandbox, LivenessProviderSandbox, type DocumentReader, type FaceMatcher, type LivenessProvider } from "@signet/core"
import { Layer } from "effect"
import { DocumentReaderLocal } from "./document-reader.ts"
import { FaceMatcherLocal } from "./face-matcher.ts"
import { LivenessProviderLocal } from "./liveness.ts"

/** Which adapter each KYC port uses. */
export interface KycProviderChoice {
  readonly documentReader: "sandbox" | "local"
  readonly faceMatcher: "sandbox" | "local"
  readonly liveness: "sandbox" | "local"
}

/** The three ports with the chosen adapters. */
export const kycProviders = (choice: KycProviderChoice): Layer.Layer<DocumentReader | FaceMatcher | LivenessProvider> => Layer.mergeAll(
  choice.documentReader === "local" ? DocumentReaderLocal : DocumentReaderSandbox,
  choice.faceMatcher === "local" ? FaceMatcherLocal : FaceMatcherSandbox,
  choice.liveness === "local" ? LivenessProviderLocal : LivenessProviderSandbox,
)

/** All three local adapters. */
export const KycProvidersLocal = kycProviders({ documentReader: "local", faceMatcher: "local", liveness: "local" })
