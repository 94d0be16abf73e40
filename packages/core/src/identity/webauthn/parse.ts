/** Reads the parts of a WebAuthn response the engine checks itself, one check per spec message. */
import { Effect } from "effect"
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
export const base64UrlField = (field: string, value: string): Effect.Effect<Uint8Array, InvalidRequest> => {
  const bytes = fromBase64(value)
  return bytes === undefined || bytes.length === 0 ? Effect.fail(new InvalidRequest({ detail: `${field} must be base64url` })) : Effect.succeed(bytes)
}

// Stateless without `stream`: one instance serves every call.
const decoder = new TextDecoder()

/** Parses clientDataJSON. */
export const parseClientData = (field: string, value: string): Effect.Effect<ClientData, InvalidRequest> =>
  base64UrlField(field, value).pipe(
    Effect.flatMap((bytes) =>
      Effect.try({
        try: () => {
          const text = decoder.decode(bytes)
          if (jsonDepthProblem(text) !== undefined) throw new Error("too deep")
          const parsed: unknown = JSON.parse(text)
          if (typeof parsed !== "object" || parsed === null) throw new Error("not an object")
          const { type, challenge, origin, tokenBinding } = parsed as Record<string, unknown>
          if (typeof type !== "string" || typeof challenge !== "string" || typeof origin !== "string") throw new Error("fields")
          return { type, challenge, origin, tokenBinding: tokenBinding !== undefined, bytes }
        },
        catch: () => new InvalidRequest({ detail: `${field} is not a WebAuthn client data JSON` }),
      }),
    ),
  )

/** Parses the first 37 bytes of authenticatorData. */
export const parseAuthenticatorData = (bytes: Uint8Array, field: string): Effect.Effect<AuthenticatorDataHead, InvalidRequest> => {
  if (bytes.length < 37) return Effect.fail(new InvalidRequest({ detail: `${field} is too short` }))
  const flags = bytes[32]!
  const signCount = new DataView(bytes.buffer, bytes.byteOffset + 33, 4).getUint32(0)
  return Effect.succeed({ rpIdHash: bytes.slice(0, 32), userPresent: (flags & 0x01) !== 0, userVerified: (flags & 0x04) !== 0, signCount })
}
