/**
 * @peculiar/x509, loaded on first use. Its dependency-injection container (tsyringe) needs the
 * `Reflect` metadata polyfill, which patches a global; importing the core must not, so the
 * library (and the polyfill before it) loads the first time a certificate is made or read.
 */
import type * as X509 from "@peculiar/x509"
import { Effect } from "effect"

export type { X509 }

let loading: Promise<typeof X509> | undefined
// once loaded, answered without a round through the promise (every signature asks)
let loaded: typeof X509 | undefined

const load = (): Promise<typeof X509> => {
  loading ??= import("reflect-metadata")
    .then(() => import("@peculiar/x509"))
    .then((x509) => {
      loaded = x509
      return x509
    })
  return loading
}

/** The x509 library, with the polyfill installed first; loaded once. */
export const loadX509: Effect.Effect<typeof X509> = Effect.suspend(() => (loaded !== undefined ? Effect.succeed(loaded) : Effect.promise(load)))

/** The KeyUsage bits (RFC 5280 §4.2.1.3) as x509's `KeyUsageFlags` numbers them, usable before it loads. */
export const KeyUsage = { digitalSignature: 1, nonRepudiation: 2, keyEncipherment: 4, keyCertSign: 32, cRLSign: 64 } as const
