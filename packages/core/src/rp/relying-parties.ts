/** Relying-party use cases: registration, administration and client authentication. */
import { Clock, Effect, Option } from "effect"
import { AlreadyExists, InvalidRequest, ResourceNotFound } from "../kernel/errors.ts"
import { InvalidClient, InvalidClientCredentials, RpNotApproved, UnknownRpClientId } from "./errors.ts"
import { hashSecret, newSecret, secretMatches } from "../kernel/secrets.ts"
import { RelyingParties } from "./ports.ts"
import { Storage } from "../ports/storage.ts"
import type { IdTokenAlgorithm } from "../oidc/model.ts"
import type { Loa, PlanId, RelyingParty, RetiredSecret, RpStatus } from "./model.ts"
import { DEFAULT_SECRET_GRACE_SECONDS, EngineConfig, engineRpIdOf, environmentPrefix } from "../ports/engine-config.ts"
import { token } from "../ports/random.ts"
import { applyRpCommand, checkRedirectUris, isOrigin, isRpId, type RpCommand } from "./commands.ts"

/** What registering an RP takes. */
export interface RegisterRelyingParty {
  readonly name: string
  readonly signingOrigins?: ReadonlyArray<string>
  readonly webauthnRpId?: string
  readonly plan?: PlanId | null
  readonly maxLoa?: Loa
  readonly contactUserId?: string | null
  /** OAuth / OpenID Connect redirect URIs (exact match) */
  readonly redirectUris?: ReadonlyArray<string>
  /** RP-initiated logout return addresses (exact match) */
  readonly postLogoutRedirectUris?: ReadonlyArray<string>
  readonly requestedPlan?: PlanId | null
  /** `id_token_signed_response_alg`; RS256, the OIDC default, when not given */
  readonly idTokenSignedResponseAlg?: IdTokenAlgorithm
  /** Administrators and demo mode may register an RP approved at once. */
  readonly status?: RpStatus
}

/** A registered RP with its secrets in the clear: shown this once, stored only hashed. */
export interface RelyingPartyWithSecrets {
  readonly rp: RelyingParty
  readonly clientSecret: string
  readonly sscSecret: string
}

const secretsFor = (environment: "sandbox" | "production") => {
  const env = environmentPrefix(environment)
  return Effect.all({ clientSecret: newSecret(`sk_${env}`), sscSecret: newSecret(`ssc_${env}`) })
}

/** Registers an RP (status `pending` unless stated) with fresh client and SSC secrets. */
export const registerRelyingParty = (input: RegisterRelyingParty) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const repo = yield* RelyingParties
    const name = input.name.trim()
    if (name === "") return yield* new InvalidRequest({ detail: "name is required" })
    const origins = input.signingOrigins ?? []
    const bad = origins.find((o) => !isOrigin(o))
    if (bad !== undefined) return yield* new InvalidRequest({ detail: `signing origin ${bad} is not an origin (scheme://host[:port])` })
    const rpId = input.webauthnRpId ?? engineRpIdOf(settings)
    if (!isRpId(rpId)) return yield* new InvalidRequest({ detail: `WebAuthn RP id ${rpId} is not a host name` })
    const redirectUris = input.redirectUris ?? []
    const postLogoutRedirectUris = input.postLogoutRedirectUris ?? []
    const badUri = checkRedirectUris([...redirectUris, ...postLogoutRedirectUris])
    if (badUri !== undefined) return yield* badUri
    const now = yield* Clock.currentTimeMillis
    const { clientSecret, sscSecret } = yield* secretsFor(settings.environment)
    const clientId = `rp_${environmentPrefix(settings.environment)}_${yield* token(12)}`
    const rp = yield* repo
      .insert({
        clientId,
        name,
        environment: settings.environment,
        clientSecretHash: yield* hashSecret(clientSecret),
        sscSecretHash: yield* hashSecret(sscSecret),
        status: input.status ?? "pending",
        maxLoa: input.maxLoa ?? "LOA-2",
        kycVerified: false,
        signingOrigins: [...new Set(origins)],
        webauthnRpId: rpId,
        plan: input.plan ?? null,
        customAllowance: null,
        contactUserId: input.contactUserId ?? null,
        redirectUris: [...new Set(redirectUris)],
        postLogoutRedirectUris: [...new Set(postLogoutRedirectUris)],
        requestedPlan: input.requestedPlan ?? null,
        retiredClientSecret: null,
        retiredSscSecret: null,
        idTokenSignedResponseAlg: input.idTokenSignedResponseAlg ?? "RS256",
        createdAt: now,
        updatedAt: now,
      })
      .pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: "RP client id" })))
    return { rp, clientSecret, sscSecret } satisfies RelyingPartyWithSecrets
  })

/**
 * The RP with this client id in this engine's environment. An RP of the other environment
 * (a shared database) is as unknown as a missing one: sandbox and production never mix.
 */
export const findRelyingParty = (clientId: string) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const found = yield* Effect.flatMap(RelyingParties, (repo) => repo.findByClientId(clientId))
    return Option.filter(found, (rp) => rp.environment === settings.environment)
  })

/** The RP with this client id, or 404. */
export const getRelyingParty = (clientId: string) =>
  findRelyingParty(clientId).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ what: `RP ${clientId}` })),
        onSome: Effect.succeed,
      }),
    ),
  )

/** Applies an administrative command to an RP and stores the result in one transaction. */
export const administerRelyingParty = (clientId: string, command: RpCommand) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(
      Effect.gen(function* () {
        const repo = yield* RelyingParties
        const rp = yield* getRelyingParty(clientId)
        const { rp: next, events } = yield* applyRpCommand(rp, command, yield* Clock.currentTimeMillis)
        yield* repo.update(next)
        return { rp: next, events }
      }),
    )
  })

/** Which secrets a rotation replaces. */
export type SecretKind = "client" | "ssc" | "both"

/**
 * Replaces the client secret, the SSC secret or both. The replaced secret keeps working for
 * the grace period (`secretGraceSeconds`, 24 h by default) so RP servers can switch over;
 * `grace: false` (an administrator after a leak) ends it at once. Only the secret just
 * replaced is kept: a second rotation within the grace period retires the first one for good.
 */
export const rotateSecrets = (clientId: string, which: SecretKind, options: { readonly grace?: boolean } = {}) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const storage = yield* Storage
    return yield* storage.transaction(
      Effect.gen(function* () {
        const repo = yield* RelyingParties
        const rp = yield* getRelyingParty(clientId)
        const fresh = yield* secretsFor(settings.environment)
        const now = yield* Clock.currentTimeMillis
        const graceMs = options.grace === false ? 0 : (settings.secretGraceSeconds ?? DEFAULT_SECRET_GRACE_SECONDS) * 1000
        const retire = (hash: string): RetiredSecret | null => (graceMs > 0 ? { hash, validUntil: now + graceMs } : null)
        const client = which !== "ssc"
        const ssc = which !== "client"
        const next: RelyingParty = {
          ...rp,
          clientSecretHash: client ? yield* hashSecret(fresh.clientSecret) : rp.clientSecretHash,
          sscSecretHash: ssc ? yield* hashSecret(fresh.sscSecret) : rp.sscSecretHash,
          retiredClientSecret: client ? retire(rp.clientSecretHash) : rp.retiredClientSecret,
          retiredSscSecret: ssc ? retire(rp.sscSecretHash) : rp.retiredSscSecret,
          updatedAt: now,
        }
        yield* repo.update(next)
        return {
          rp: next,
          ...(client ? { clientSecret: fresh.clientSecret } : {}),
          ...(ssc ? { sscSecret: fresh.sscSecret } : {}),
          previousValidUntil: graceMs > 0 ? now + graceMs : null,
        }
      }),
    )
  })

/**
 * The one check of an RP secret: the current secret, or the one replaced by the last rotation
 * while its grace period runs. Both hashes are compared in constant time, always, so timing
 * does not tell which one matched.
 */
export const secretAccepted = (rp: RelyingParty | undefined, kind: "client" | "ssc", presented: string) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const current = rp === undefined ? "" : kind === "client" ? rp.clientSecretHash : rp.sscSecretHash
    const retired = rp === undefined ? null : kind === "client" ? rp.retiredClientSecret : rp.retiredSscSecret
    const matchesCurrent = yield* secretMatches(presented, current)
    const matchesRetired = yield* secretMatches(presented, retired?.hash ?? "")
    return rp !== undefined && (matchesCurrent || (matchesRetired && retired !== null && now < retired.validUntil))
  })

/** HTTP Basic client authentication (KYC, token endpoint): any failure is `invalid_client`; only approved RPs pass. */
export const authenticateClient = (clientId: string, clientSecret: string) =>
  Effect.gen(function* () {
    const found = yield* findRelyingParty(clientId)
    // Hash even for an unknown id so timing does not tell which ids exist.
    const matches = yield* secretAccepted(Option.getOrUndefined(found), "client", clientSecret)
    if (Option.isNone(found) || !matches || found.value.status !== "approved") return yield* new InvalidClient()
    return found.value
  })

/**
 * SSC-secret authentication for `/ssc/token`: unknown id, then the secret, then the
 * approval status, so the status is only told to a caller who holds the secret.
 */
export const authenticateSsc = (clientId: string, sscSecret: string) =>
  Effect.gen(function* () {
    const found = yield* findRelyingParty(clientId)
    if (Option.isNone(found)) return yield* new UnknownRpClientId()
    if (!(yield* secretAccepted(found.value, "ssc", sscSecret))) return yield* new InvalidClientCredentials()
    if (found.value.status !== "approved") return yield* new RpNotApproved({ rpStatus: found.value.status })
    return found.value
  })

/** An approved RP by client id, for flows that name an RP without a secret (sign-in). */
export const approvedRelyingParty = (clientId: string) =>
  Effect.gen(function* () {
    const found = yield* findRelyingParty(clientId)
    if (Option.isNone(found)) return yield* new UnknownRpClientId()
    if (found.value.status !== "approved") return yield* new RpNotApproved({ rpStatus: found.value.status })
    return found.value
  })
