/** Input rules of the signing endpoints, as pure functions. */
import { deliveryUrlProblem } from "../events/address-guard.ts"
import type { DigestAlgorithm } from "../pki/cms.ts"

/** Object identifiers of the hash algorithms a batch document may name. */
export const HASH_ALGORITHMS: Readonly<Record<string, { readonly name: DigestAlgorithm; readonly hexLength: number }>> = {
  "2.16.840.1.101.3.4.2.1": { name: "SHA-256", hexLength: 64 },
  "2.16.840.1.101.3.4.2.2": { name: "SHA-384", hexLength: 96 },
  "2.16.840.1.101.3.4.2.3": { name: "SHA-512", hexLength: 128 },
}

/** Whether `value` is a hex digest of `hexLength` characters. */
export const isHexDigest = (value: string, hexLength = 64): boolean => value.length === hexLength && /^[0-9a-fA-F]+$/.test(value)

/**
 * A callback URL passes the same address guard as a webhook URL (public https; loopback http only
 * with the development switch), at creation as at delivery.
 */
export const callbackUrlProblem = (value: string, allowLoopbackHttp: boolean): string | undefined => {
  const problem = deliveryUrlProblem(value, allowLoopbackHttp)
  return problem === undefined ? undefined : `callbackUrl ${problem}`
}

/** Lifetime of a pending signing request or batch (as the spec's operations): five minutes. */
export const PENDING_LIFETIME_MS = 5 * 60 * 1000

/** A pending request or batch fails after this many refused assertions. */
export const MAX_FAILED_ASSERTIONS = 5
