/** HTTP Basic credentials (RFC 7617), as RP backends send their client id and secret. */
import { fromBase64 } from "@signet/core"

/** The client id and secret of an `Authorization: Basic …` header (URL-decoded, RFC 6749 §2.3.1); undefined when absent or malformed. */
export const basicCredentials = (request: Request): { readonly id: string; readonly secret: string } | undefined => {
  const m = /^Basic\s+(\S+)$/i.exec((request.headers.get("authorization") ?? "").trim())
  if (m === null) return undefined
  const decoded = fromBase64(m[1]!)
  if (decoded === undefined) return undefined
  const text = new TextDecoder().decode(decoded)
  const i = text.indexOf(":")
  if (i < 0) return undefined
  try {
    return { id: decodeURIComponent(text.slice(0, i)), secret: decodeURIComponent(text.slice(i + 1)) }
  } catch {
    return undefined
  }
}
