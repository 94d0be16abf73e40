/** Relying-party use cases: registration, administration and client authentication. */
import { Clock, Effect, Option } from "effect"
import { AlreadyExists, InvalidClient, InvalidClientCredentials, InvalidRequest, ResourceNotFound, RpNotApproved, UnknownRpClientId } from "../errors/catalogue.ts"
import { hashSecret, newSecret, secretMatches } from "../identity/secrets.ts"
import { EngineConfig, engineRpIdOf, environmentPrefix } from "../ports/engine-config.ts"
import { token } from "../ports/random.ts"
import { RelyingParties, Storage } from "../ports/storage.ts"
import { applyRpCommand, isOrigin, isRedirectUri, isRpId, type RpCommand } from "./commands.ts"
import type { Loa } from "./loa.ts"
import type { PlanId } from "./plans.ts"
import type { RelyingParty, RpStatus } from "./relying-party.ts"

/** What registering an RP takes. */
export interface RegisterRelyingParty {
  readonly name: string
  readonly signingOrigins?: ReadonlyArray<string>
  readonly webauthnRpId?: string
  readonly plan?: PlanId | null
  readonly maxLoa?: Loa
  readonly contactUserId?: string | null
  /** OpenID Connect redirect URIs (exact match) */
  readonly redirectUris?: ReadonlyArray<string>
  /** RP-initiated logout return addresses (exact match) */
  readonly postLogoutRedirectUris?: ReadonlyArray<string>
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
    const badUri = [...(input.redirectUris ?? []), ...(input.postLogoutRedirectUris ?? [])].find((u) => !isRedirectUri(u))
    if (badUri !== undefined) return yield* new InvalidRequest({ detail: `redirect URI ${badUri} must be an absolute https URL (http only for localhost) without fragment` })
    const rpId = input.webauthnRpId ?? engineRpIdOf(settings)
    if (!isRpId(rpId)) return yield* new InvalidRequest({ detail: `WebAuthn RP id ${rpId} is not a host name` })
    const now = yield* Clock.currentTimeMillis
    const { clientSecret, sscSecret } = yield* secretsFor(settings.environment)
    const clientId = `rp_${environmentPrefix(settings.environment)}_${yield* token(12)}`
    const rp = yield* repo.insert({
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
      redirectUris: [...new Set(input.redirectUris ?? [])],
      postLogoutRedirectUris: [...new Set(input.postLogoutRedirectUris ?? [])],
      createdAt: now,
      updatedAt: now,
    }).pipe(Effect.catchTag("UniqueViolation", () => new AlreadyExists({ what: "RP client id" })))
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
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new ResourceNotFound({ what: `RP ${clientId}` })),
      onSome: Effect.succeed,
    })))

/** Applies an administrative command to an RP and stores the result in one transaction. */
export const administerRelyingParty = (clientId: string, command: RpCommand) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    return yield* storage.transaction(Effect.gen(function* () {
      const repo = yield* RelyingParties
      const rp = yield* getRelyingParty(clientId)
      const { rp: next, events } = yield* applyRpCommand(rp, command, yield* Clock.currentTimeMillis)
      yield* repo.update(next)
      return { rp: next, events }
    }))
  })

/** Replaces the client secret, the SSC secret or both; the old ones stop working at once. */
export const rotateSecrets = (clientId: string, which: "client" | "ssc" | "both") =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const storage = yield* Storage
    return yield* storage.transaction(Effect.gen(function* () {
      const repo = yield* RelyingParties
      const rp = yield* getRelyingParty(clientId)
      const fresh = yield* secretsFor(settings.environment)
      const next: RelyingParty = {
        ...rp,
        clientSecretHash: which === "ssc" ? rp.clientSecretHash : yield* hashSecret(fresh.clientSecret),
        sscSecretHash: which === "client" ? rp.sscSecretHash : yield* hashSecret(fresh.sscSecret),
        updatedAt: yield* Clock.currentTimeMillis,
      }
      yield* repo.update(next)
      return {
        rp: next,
        ...(which !== "ssc" ? { clientSecret: fresh.clientSecret } : {}),
        ...(which !== "client" ? { sscSecret: fresh.sscSecret } : {}),
      }
    }))
  })

/** HTTP Basic client authentication (KYC, token endpoint): any failure is `invalid_client`; only approved RPs pass. */
export const authenticateClient = (clientId: string, clientSecret: string) =>
  Effect.gen(function* () {
    const found = yield* findRelyingParty(clientId)
    // Hash even for an unknown id so timing does not tell which ids exist.
    const matches = yield* secretMatches(clientSecret, Option.match(found, { onNone: () => "", onSome: (rp) => rp.clientSecretHash }))
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
    if (!(yield* secretMatches(sscSecret, found.value.sscSecretHash))) return yield* new InvalidClientCredentials()
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
