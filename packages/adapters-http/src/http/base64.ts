/**
 * Decoding large base64 uploads (PDFs) on the request's thread: the same alphabet and length
 * rules as the core's `fromBase64` (base64 or base64url, padding optional), checked by one
 * regular expression, then decoded natively by `Buffer` where the host has it. A 10 MiB upload
 * then costs the main thread a few milliseconds rather than tens (docs/security/pdf.md).
 */
import { fromBase64 } from "@signet/core"

const BASE64 = /^[A-Za-z0-9+/_-]*=*$/

type BufferLike = { from: (text: string, encoding: "base64") => Uint8Array }

/** Bytes of base64 or base64url `text`; undefined when it is not valid (as `fromBase64`). */
export const decodeBase64Upload = (text: string): Uint8Array | undefined => {
  const host = (globalThis as { Buffer?: BufferLike }).Buffer
  if (host === undefined) return fromBase64(text)
  if (!BASE64.test(text)) return undefined
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--
  if (end % 4 === 1) return undefined
  const decoded = host.from(text, "base64")
  return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength)
}
