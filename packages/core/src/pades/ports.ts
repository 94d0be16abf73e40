/** Ports of the PAdES capability: PDFs prepared for signing through the HTTP flow. */
import { Context, type Effect, type Option } from "effect"
import type { UniqueViolation } from "../ports/storage.ts"

/** A PDF prepared for PAdES signing: the document with its signature update, sealed at rest. */
export interface PreparedPdf {
  /** the signing request that approves it */
  readonly requestId: string
  readonly clientId: string
  readonly userId: string
  /** Vault-sealed bytes of the original PDF followed by the prepared update (empty `/Contents`) */
  readonly sealed: Uint8Array
  /** absolute offset of the first hex digit of `/Contents`, and its room in bytes */
  readonly contentsOffset: number
  readonly contentsBytes: number
  readonly fieldName: string
  /** the PAdES baseline level asked for: -B, -T (a timestamp in the CMS), -LT (plus a DSS when fetched) or -LTA (plus a document timestamp) */
  readonly level: PadesLevel
  readonly createdAt: number
}

/** The PAdES baseline levels a PDF can be signed at (ETSI EN 319 142-1). */
export type PadesLevel = "PAdES-BASELINE-B" | "PAdES-BASELINE-T" | "PAdES-BASELINE-LT" | "PAdES-BASELINE-LTA"

/** PDFs prepared for signing through the HTTP flow (hosts that sign larger files use the library API on a file). */
export class PreparedPdfs extends Context.Tag("@signet/core/PreparedPdfs")<
  PreparedPdfs,
  {
    readonly insert: (pdf: PreparedPdf) => Effect.Effect<void, UniqueViolation>
    readonly findByRequestId: (requestId: string) => Effect.Effect<Option.Option<PreparedPdf>>
    /** Deletes every prepared PDF created before `before` (ms); the number deleted. */
    readonly purgeBefore: (before: number) => Effect.Effect<number>
  }
>() {}
