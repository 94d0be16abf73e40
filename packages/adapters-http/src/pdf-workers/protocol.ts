/** Messages between the PDF worker pool and its threads (structured-cloneable data only). */
import type { SignatureOptions, ValidationMaterial } from "@signet/core"

/** A job for a worker. */
export type PdfJobMessage =
  | { readonly id: number; readonly job: "prepare"; readonly pdf: Uint8Array; readonly options: SignatureOptions }
  | { readonly id: number; readonly job: "prepareTimestamp"; readonly pdf: Uint8Array; readonly placeholderBytes: number }
  | { readonly id: number; readonly job: "scan"; readonly pdf: Uint8Array }
  | { readonly id: number; readonly job: "appendDss"; readonly pdf: Uint8Array; readonly material: ValidationMaterial }

/** A worker's answer: the value, a catalogued failure, or a defect. */
export type PdfJobReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly _tag: string; readonly detail: string } }
  | { readonly id: number; readonly ok: false; readonly defect: string }
