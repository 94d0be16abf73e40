/**
 * Reads the parts of a WebAuthn response the engine checks itself, one check per spec message.
 * Each reader answers with an `Either`, which is also an Effect: the assertion path reads it at
 * once, without a step of the runtime per field.
 */
import { Either } from "effect"
import { InvalidRequest } from "../../kernel/errors.ts"
import { fromBase64 } from "../../kernel/encoding.ts"
import { jsonDepthProblem } from "../../kernel/json-depth.ts"

/** The fields of clientDataJSON the engine checks. */
export interface ClientData {
  readonly type: string
  readonly challenge: string
  readonly origin: string
  /** whether the client named a token binding (the library judges those) */
  readonly tokenBinding: boolean
  /** the decoded clientDataJSON, whose SHA-256 the authenticator signed */
  readonly bytes: Uint8Array
}

/** The fixed head of authenticatorData (WebAuthn §6.1). */
export interface AuthenticatorDataHead {
  readonly rpIdHash: Uint8Array
  readonly userPresent: boolean
  readonly userVerified: boolean
  readonly signCount: number
}

/** Decodes base64url `value` of field `field`, or a 400 naming the field. */
export const base64UrlField = (field: string, value: string): Either.Either<Uint8Array, InvalidRequest> => {
  const bytes = fromBase64(value)
  return bytes === undefined || bytes.length === 0 ? Either.left(new InvalidRequest({ detail: `${field} must be base64url` })) : Either.right(bytes)
}

// Stateless without `stream`: one instance serves every call.
const decoder = new TextDecoder()

/** Parses clientDataJSON. */
export const parseClientData = (field: string, value: string): Either.Either<ClientData, InvalidRequest> =>
  Either.flatMap(base64UrlField(field, value), (bytes) => {
    // made only on failure: an error captures a stack trace
    const notClientData = () => Either.left(new InvalidRequest({ detail: `${field} is not a WebAuthn client data JSON` }))
    const text = decoder.decode(bytes)
    if (jsonDepthProblem(text) !== undefined) return notClientData()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return notClientData()
    }
    if (typeof parsed !== "object" || parsed === null) return notClientData()
    const { type, challenge, origin, tokenBinding } = parsed as Record<string, unknown>
    if (typeof type !== "string" || typeof challenge !== "string" || typeof origin !== "string") return notClientData()
    return Either.right({ type, challenge, origin, tokenBinding: tokenBinding !== undefined, bytes })
  })

/** Parses the first 37 bytes of authenticatorData. */
export const parseAuthenticatorData = (bytes: Uint8Array, field: string): Either.Either<AuthenticatorDataHead, InvalidRequest> => {
  if (bytes.length < 37) return Either.left(new InvalidRequest({ detail: `${field} is too short` }))
  const flags = bytes[32]!
  const signCount = new DataView(bytes.buffer, bytes.byteOffset + 33, 4).getUint32(0)
  return Either.right({ rpIdHash: bytes.slice(0, 32), userPresent: (flags & 0x01) !== 0, userVerified: (flags & 0x04) !== 0, signCount })
}
