/** Choosing sandbox or local adapters per KYC port. */
import {
  declareAdapter,
  DocumentReaderSandbox,
  FaceMatcherSandbox,
  LivenessProviderSandbox,
  mergeAdapters,
  type EngineConfig,
  type DocumentReader,
  type FaceMatcher,
  type LivenessProvider,
} from "@signet/core"
import type { Layer } from "effect"
import { DocumentReaderLocal } from "./document-reader.ts"
import { FaceMatcherLocal } from "./face-matcher.ts"
import { LivenessProviderLocal } from "./liveness.ts"

/** Which adapter each KYC port uses. */
export interface KycProviderChoice {
  readonly documentReader: "sandbox" | "local"
  readonly faceMatcher: "sandbox" | "local"
  readonly liveness: "sandbox" | "local"
}

const local = <A>(port: string, variable: string, layer: Layer.Layer<A>) =>
  declareAdapter({ port, adapter: "local (@signet/kyc-local, offline models)", setting: `${variable}=local` }, layer)

/** The three ports with the chosen adapters (a sandbox one refuses to run in production). */
export const kycProviders = (choice: KycProviderChoice): Layer.Layer<DocumentReader | FaceMatcher | LivenessProvider, never, EngineConfig> =>
  mergeAdapters(
    choice.documentReader === "local" ? local("KYC document reader", "SIGNET_KYC_DOCUMENT_READER", DocumentReaderLocal) : DocumentReaderSandbox,
    choice.faceMatcher === "local" ? local("KYC face matcher", "SIGNET_KYC_FACE_MATCHER", FaceMatcherLocal) : FaceMatcherSandbox,
    choice.liveness === "local" ? local("KYC liveness", "SIGNET_KYC_LIVENESS", LivenessProviderLocal) : LivenessProviderSandbox,
  )

/** All three local adapters. */
export const KycProvidersLocal = kycProviders({ documentReader: "local", faceMatcher: "local", liveness: "local" })
