/**
 * `POST /ssc/token`: an RP's server trades its SSC secret for a signing token bound to one
 * document hash and LOA, valid five minutes (an ES256 JWT of type `ssc+jwt`, signed in the
 * KeyStore). LOA-4 binds the token to the signer's passkey.
 */
import { Clock, Effect, Option } from "effect"
import { InvalidOrExpiredToken } from "../identity/errors.ts"
import { InvalidRequest } from "../kernel/errors.ts"
import { NoCredentialForUser, UserNotFoundForEmail } from "./errors.ts"
import { isEmail } from "../identity/email-verification.ts"
import { Passkeys, Users } from "../identity/ports.ts"
import { Storage } from "../ports/storage.ts"
import { requireLoa } from "../rp/loa.ts"
import type { Loa } from "../rp/model.ts"
import { planInForce } from "../rp/plan-in-force.ts"
import { signJwt, verifyJwt } from "../identity/jws.ts"
import { EngineConfig, issuerOf, type EngineSettings } from "../ports/engine-config.ts"
import { uuid } from "../ports/random.ts"
import { countingQuotaRefusals, reserveSignatures } from "../rp/quota.ts"
import { authenticateSsc } from "../rp/relying-parties.ts"
import { isHexDigest } from "../signing/rules.ts"

/** Lifetime of a signing token: five minutes. */
export const SIGNING_TOKEN_LIFETIME_SECONDS = 300

/** The KeyStore id of this environment's signing-token key. */
export const signingTokenKeyId = (s: Pick<EngineSettings, "environment">): string => `${s.environment}/ssc-token/1`

const expectation = (s: EngineSettings) => ({ keyIds: [signingTokenKeyId(s)], typ: "ssc+jwt", issuer: issuerOf(s), audience: `${issuerOf(s)}/ssc` })

/** What a verified signing token says. */
export interface SigningTokenClaims {
  readonly tokenId: string
  readonly clientId: string
  readonly documentHash: string
  readonly loa: Loa
  /** the named signer, when the token was issued for one */
  readonly userId: string | null
  readonly email: string | null
  /** the bound passkey (LOA-4) */
  readonly credentialId: string | null
}

/** The token request as it arrives (`signerEmail` is the signer's e-mail; required for LOA-4). */
export interface SigningTokenRequest {
  readonly clientId: string
  readonly clientSecret: string
  readonly documentHash: string
  readonly loa: Loa
  readonly signerEmail?: string | undefined
}

/**
 * Checks, in order: client id, SSC secret, approval (the status is told only to a holder of
 * the secret), the LOA against the RP's maximum and KYC, then for a named signer the account
 * and, for LOA-4, its passkey. Issuing counts against the RP's signing allowance.
 */
export const issueSigningToken = (input: SigningTokenRequest) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (!isHexDigest(input.documentHash)) return yield* new InvalidRequest({ detail: "documentHash must be a hex SHA-256 (64 hexadecimal characters)" })
    const rp = yield* authenticateSsc(input.clientId, input.clientSecret)
    const inForce = yield* planInForce(rp)
    yield* requireLoa(input.loa, rp, inForce.highestLoa)
    const email = input.signerEmail?.trim().toLowerCase()
    if (input.loa === "LOA-4" && !email) return yield* new InvalidRequest({ detail: "signerEmail is required for LOA-4" })
    if (email !== undefined && email !== "" && !isEmail(email)) return yield* new InvalidRequest({ detail: "signerEmail must be an e-mail address" })
    let userId: string | null = null
    let credentialId: string | null = null
    if (email) {
      // Only a proven address names a signer: an account opened through an identity provider keeps
      // the provider's unproven claim until its owner proves it, and must not receive another's tokens.
      const user = Option.filter(yield* Effect.flatMap(Users, (u) => u.findByEmail(email)), (u) => u.emailVerifiedAt !== null)
      if (Option.isNone(user)) return yield* new UserNotFoundForEmail({ email })
      userId = user.value.id
      const passkeys = (yield* Effect.flatMap(Passkeys, (p) => p.listByUser(user.value.id))).filter((p) => p.rpId === rp.webauthnRpId)
      if (input.loa === "LOA-4") {
        // Bound to the signer's newest passkey for this RP's WebAuthn RP id.
        const newest = passkeys.at(-1)
        if (newest === undefined) return yield* new NoCredentialForUser()
        credentialId = newest.id
      }
    }
    const storage = yield* Storage
    yield* storage.transaction(reserveSignatures(rp, `ssc-token`, 1, "single", inForce)).pipe(countingQuotaRefusals(rp.clientId))
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const expiresAt = now + SIGNING_TOKEN_LIFETIME_SECONDS
    const e = expectation(settings)
    const token = yield* signJwt(signingTokenKeyId(settings), "ssc+jwt", {
      iss: e.issuer,
      aud: e.audience,
      jti: yield* uuid,
      iat: now,
      exp: expiresAt,
      client_id: rp.clientId,
      document_hash: input.documentHash.toLowerCase(),
      loa: input.loa,
      ...(userId !== null ? { sub: userId, email } : {}),
      ...(credentialId !== null ? { credential_id: credentialId } : {}),
    })
    return { token, expiresAt, loa: input.loa, credentialBound: credentialId !== null }
  })

/** Verifies a signing token: 401 `Invalid or expired token` for any flaw. */
export const verifySigningToken = (token: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const p = yield* verifyJwt(token, expectation(settings))
    const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null)
    if (p === undefined || !str(p.jti) || !str(p["client_id"]) || !str(p["document_hash"]) || (p["loa"] !== "LOA-2" && p["loa"] !== "LOA-4")) {
      return yield* new InvalidOrExpiredToken()
    }
    return {
      tokenId: p.jti!,
      clientId: str(p["client_id"])!,
      documentHash: str(p["document_hash"])!,
      loa: p["loa"],
      userId: str(p.sub),
      email: str(p["email"]),
      credentialId: str(p["credential_id"]),
    } satisfies SigningTokenClaims
  })
