/**
 * The storage contract as a test suite: any adapter of the storage ports (SQLite,
 * PostgreSQL, in-memory, yours) runs `storageConformance(name, makeLayer)` and must pass it.
 * Each test gets a fresh layer from `makeLayer`, so tests never see each other's rows.
 * The suite is assembled from one file per capability module (`./<module>.ts`): a new
 * module adds its file and one line in `conformanceSuites`.
 */
import { describe } from "@effect/vitest"
import type { Layer } from "effect"
import { authorizationConformance } from "./authorization.ts"
import { billingConformance } from "./billing.ts"
import { documentsConformance } from "./documents.ts"
import { eventsConformance } from "./events.ts"
import { identityProvidersConformance } from "./identity-providers.ts"
import { identityConformance } from "./identity.ts"
import { kernelConformance } from "./kernel.ts"
import { kycConformance } from "./kyc.ts"
import { oidcConformance } from "./oidc.ts"
import { padesConformance } from "./pades.ts"
import { pkiConformance } from "./pki.ts"
import { rpConformance } from "./rp.ts"
import { signingConformance } from "./signing.ts"
import { sscConformance } from "./ssc.ts"
import { type ConformanceSuite, conformanceKit, type TagsOf } from "./suite.ts"

/** Every module's suite, in the order they run. */
export const conformanceSuites = [
  rpConformance,
  identityConformance,
  identityProvidersConformance,
  pkiConformance,
  documentsConformance,
  padesConformance,
  signingConformance,
  sscConformance,
  kycConformance,
  eventsConformance,
  billingConformance,
  oidcConformance,
  authorizationConformance,
  kernelConformance,
] as const

/** Every tag a storage adapter provides. */
export type StorageTags = TagsOf<(typeof conformanceSuites)[number]>

/** Declares the storage contract suite `storage: <name>` against the layers `makeLayer` builds (one per test). */
export const storageConformance = (name: string, makeLayer: () => Layer.Layer<StorageTags, unknown>): void => {
  const kit = conformanceKit(makeLayer)
  const suites: ReadonlyArray<ConformanceSuite<StorageTags>> = conformanceSuites
  describe(`storage: ${name}`, () => {
    for (const suite of suites) suite.declare(kit)
  })
}
