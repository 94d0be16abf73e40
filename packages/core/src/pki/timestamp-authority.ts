/** TimestampAuthority port: RFC 3161 time-stamp tokens over a message imprint. */
import { Context, type Effect } from "effect"
import type { TimestampUnavailable } from "./errors.ts"

/** Hash algorithms a message imprint may be made with. */
export type ImprintAlgorithm = "SHA-256" | "SHA-384" | "SHA-512"

/** What is to be time-stamped (RFC 3161 §2.4.1 `TimeStampReq`, the fields a TSA acts on). */
export interface TimestampRequest {
  /** the hash algorithm of `digest` */
  readonly hashAlgorithm: ImprintAlgorithm
  /** the hash of the datum; its length is the algorithm's */
  readonly digest: Uint8Array
  /** the request's nonce (big-endian two's-complement INTEGER content), echoed in the token */
  readonly nonce?: Uint8Array | undefined
  /** whether the token carries the TSA's certificate (and its issuer's); RFC 3161 `certReq` */
  readonly includeCertificates: boolean
}

/** Issues time-stamp tokens: DER `TimeStampToken` (a CMS ContentInfo of SignedData over a TSTInfo, RFC 3161 §2.4.2). */
export class TimestampAuthority extends Context.Tag("@signet/core/TimestampAuthority")<
  TimestampAuthority,
  {
    /** The DER TimeStampToken for `request`; fails when the authority cannot answer (an external TSA down). */
    readonly stamp: (request: TimestampRequest) => Effect.Effect<Uint8Array, TimestampUnavailable>
  }
>() {}
