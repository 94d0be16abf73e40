/**
 * Sign-in through an external OpenID provider (authorization code flow with PKCE S256, state
 * and nonce, all kept server-side and used once), and the linking rules that decide which
 * Signet account the external identity signs in: see docs/identity-providers.md.
 */
import { Clock, Effect, Option, Schema } from "effect"
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose"
import { AlreadyExists, InvalidRequest, OperationExpired, ResourceNotFound } from "../kernel/errors.ts"
import { CredentialNotRegistered } from "../identity/errors.ts"
import {
  ExternalAccountCreationRefused,
  ExternalEmailNotVerified,
  ExternalIdentityLinkedElsewhere,
  ExternalSignInFailed,
  ExternalSignInStateInvalid,
} from "./errors.ts"
import { isEmail } from "../identity/email-verification.ts"
import { hashSecret, secretMatches } from "../kernel/secrets.ts"
import { Ceremonies, Passkeys, Users } from "../identity/ports.ts"
import { Storage } from "../ports/storage.ts"
import { ceremonyRpFor } from "../identity/ceremony-rp.ts"
import { registeredPasskey } from "../identity/enrolment.ts"
import { openSignedInSession, signedInUserOf } from "../identity/hosted-session.ts"
import type { Assertion } from "../identity/webauthn/schemas.ts"
import { verifyAssertion } from "../identity/webauthn/verify-assertion.ts"
import { sha256 } from "../kernel/digest.ts"
import { toBase64Url, utf8 } from "../kernel/encoding.ts"
import { EngineConfig, issuerOf, type EngineSettings } from "../ports/engine-config.ts"
import { Random, token, uuid } from "../ports/random.ts"
import { approvedRelyingParty } from "../rp/relying-parties.ts"
import type { IdentityLink, IdentityProvider } from "./model.ts"
import { ExternalLogins, ExternalProviderClient, IdentityLinks, IdentityProviders, LinkOffers } from "./ports.ts"
import { clientSecretOf } from "./registry.ts"
import { simpleWebAuthn } from "../identity/webauthn/library.ts"

/** The callback path every external provider redirects to (register `<issuer>/idp/callback` there). */
export const EXTERNAL_CALLBACK_PATH = "/idp/callback"

/** The redirect URI to register at external providers: the engine's issuer plus the callback path. */
export const externalRedirectUriOf = (s: Pick<EngineSettings, "publicOrigin" | "basePath">): string => `${issuerOf(s)}${EXTERNAL_CALLBACK_PATH}`

/**
 * A `return_to` the engine may redirect to: a same-origin relative path (`/…`, not `//…` nor
 * `/\…`), so the flow can never be turned into an open redirect. Absent means the landing page.
 */
export const safeReturnTo = (settings: Pick<EngineSettings, "publicOrigin" | "basePath">, returnTo: string | null) =>
  Effect.gen(function* () {
    if (returnTo === null || returnTo === "") return `${settings.basePath}/`
    const bad = new InvalidRequest({ detail: "return_to must be a relative path on this origin" })
    if (!returnTo.startsWith("/") || returnTo.startsWith("//") || /[\\\x00-\x1f]/.test(returnTo) || returnTo.length > 2000) return yield* bad
    const resolved = yield* Effect.try({ try: () => new URL(returnTo, settings.publicOrigin), catch: () => bad })
    if (resolved.origin !== new URL(settings.publicOrigin).origin) return yield* bad
    return `${resolved.pathname}${resolved.search}${resolved.hash}`
  })

const providerFor = (id: string, clientId: string | null) =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(IdentityProviders, (r) => r.findById(id))
    // An RP's own provider is offered only on that RP's pages.
    if (Option.isNone(found) || (found.value.ownerClientId !== null && found.value.ownerClientId !== clientId)) {
      return yield* new ResourceNotFound({ what: "Identity provider" })
    }
    return found.value
  })

/** What starting an external sign-in takes. */
export interface ExternalStart {
  readonly providerId: string
  readonly returnTo: string | null
  readonly clientId: string | null
  /** `link`: attach the provider to the account the hosted session is signed in as */
  readonly intent: "sign-in" | "link"
  /** the hosted-session cookie, if the browser sent one */
  readonly sessionId: string | undefined
}

/**
 * Starts an external sign-in: stores state (hashed), nonce and PKCE verifier for one use within
 * the ceremony lifetime, and answers the provider's authorization URL plus a browser-binding
 * secret that the adapter sets as a cookie, so the callback only works in the browser that started.
 */
export const startExternalSignIn = (input: ExternalStart) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (input.clientId !== null) yield* approvedRelyingParty(input.clientId)
    const provider = yield* providerFor(input.providerId, input.clientId)
    const returnTo = yield* safeReturnTo(settings, input.returnTo)
    let linkUserId: string | null = null
    if (input.intent === "link") {
      const signedIn = yield* signedInUserOf(input.sessionId)
      if (Option.isNone(signedIn)) return yield* new InvalidRequest({ detail: "intent=link needs a signed-in hosted session" })
      linkUserId = signedIn.value
    }
    const state = yield* token(32)
    const nonce = yield* token(32)
    const codeVerifier = yield* token(32)
    const binding = yield* token(32)
    const codeChallenge = toBase64Url(yield* sha256(utf8(codeVerifier)))
    const now = yield* Clock.currentTimeMillis
    yield* Effect.flatMap(ExternalLogins, (r) =>
      Effect.gen(function* () {
        yield* r.insert({
          id: yield* hashSecret(state),
          providerId: provider.id,
          nonce,
          codeVerifier,
          browserBindingHash: yield* hashSecret(binding),
          returnTo,
          linkUserId,
          clientId: input.clientId,
          createdAt: now,
          expiresAt: now + settings.ceremonyTtlSeconds * 1000,
          consumedAt: null,
        })
      }),
    ).pipe(Effect.orDie)
    const url = new URL(provider.authorizationEndpoint)
    const params: Record<string, string> = {
      response_type: "code",
      client_id: provider.clientId,
      redirect_uri: externalRedirectUriOf(settings),
      scope: provider.scopes.join(" "),
      state,
      nonce,
      code_challenge: codeChallenge,
      code_challenge_method: "S256",
    }
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
    return { location: url.toString(), binding, maxAgeSeconds: settings.ceremonyTtlSeconds }
  })

const TokenAnswer = Schema.Struct({ id_token: Schema.String, access_token: Schema.optional(Schema.String), token_type: Schema.optional(Schema.String) })

/** The ID token claims Signet reads. */
interface ExternalClaims {
  readonly sub: string
  readonly email: string | null
  readonly emailVerified: boolean
  readonly name: string | null
}

/** Validates an ID token (OpenID Connect Core §3.1.3.7): signature by the provider's JWKS, iss, aud, azp, exp, nonce. */
export const validateIdToken = (provider: IdentityProvider, idToken: string, expectedNonce: string, jwks: unknown) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const payload = yield* Effect.tryPromise({
      try: async () =>
        (
          await jwtVerify(idToken, createLocalJWKSet(jwks as JSONWebKeySet), {
            issuer: provider.issuer,
            audience: provider.clientId,
            currentDate: new Date(now),
            requiredClaims: ["sub", "exp", "iat"],
            algorithms: ["RS256", "PS256", "ES256", "ES384", "EdDSA"],
          })
        ).payload,
      catch: (e) => new ExternalSignInFailed({ detail: `ID token rejected (${e instanceof Error ? e.message : String(e)})` }),
    })
    if (typeof payload["nonce"] !== "string" || payload["nonce"] !== expectedNonce)
      return yield* new ExternalSignInFailed({ detail: "ID token nonce mismatch" })
    const aud = payload.aud
    if (Array.isArray(aud) && aud.length > 1 && payload["azp"] !== provider.clientId)
      return yield* new ExternalSignInFailed({ detail: "ID token azp mismatch" })
    if (typeof payload.sub !== "string" || payload.sub === "") return yield* new ExternalSignInFailed({ detail: "ID token without sub" })
    const email = typeof payload["email"] === "string" ? payload["email"].trim().toLowerCase() : null
    return {
      sub: payload.sub,
      email,
      emailVerified: email !== null && payload["email_verified"] === true,
      name: typeof payload["name"] === "string" ? payload["name"] : null,
    } satisfies ExternalClaims
  })

/**
 * Many providers put e-mail claims only in the UserInfo answer, not in the ID token. Those are
 * read from there, and used only when its `sub` is the ID token's (OpenID Connect Core §5.3.2).
 */
const withUserInfo = (provider: IdentityProvider, claims: ExternalClaims, accessToken: string | undefined) =>
  Effect.gen(function* () {
    if (claims.email !== null || provider.userinfoEndpoint === null || accessToken === undefined) return claims
    const info = yield* Effect.flatMap(ExternalProviderClient, (c) => c.getJson(provider.userinfoEndpoint!, accessToken))
    if (typeof info !== "object" || info === null || (info as { sub?: unknown }).sub !== claims.sub) return claims
    const u = info as { email?: unknown; email_verified?: unknown; name?: unknown }
    const email = typeof u.email === "string" ? u.email.trim().toLowerCase() : null
    return {
      sub: claims.sub,
      email,
      emailVerified: email !== null && u.email_verified === true,
      name: claims.name ?? (typeof u.name === "string" ? u.name : null),
    } satisfies ExternalClaims
  })

/** How a completed external sign-in ended. */
export type ExternalOutcome =
  /** signed in (an existing link, a new link for the signed-in user, or a new account) */
  | {
      readonly kind: "signed-in"
      readonly userId: string
      readonly created: boolean
      readonly linked: boolean
      readonly returnTo: string
      readonly session: { readonly sessionId: string; readonly expiresAt: number }
    }
  /** an account with the same verified e-mail exists: its passkey must confirm the link */
  | { readonly kind: "confirm-link"; readonly offerId: string; readonly binding: string; readonly returnTo: string }

/** What the callback carries. */
export interface ExternalCallback {
  readonly state: string | null
  readonly code: string | null
  readonly error: string | null
  /** the browser-binding cookie */
  readonly binding: string | undefined
}

const newLink = (userId: string, provider: IdentityProvider, claims: ExternalClaims, now: number) =>
  Effect.gen(function* () {
    const link: IdentityLink = {
      id: yield* uuid,
      userId,
      providerId: provider.id,
      issuer: provider.issuer,
      subject: claims.sub,
      email: claims.email,
      createdAt: now,
    }
    yield* Effect.flatMap(IdentityLinks, (r) => r.insert(link)).pipe(
      Effect.catchTag("UniqueViolation", () => Effect.fail(new ExternalIdentityLinkedElsewhere())),
    )
  })

/**
 * Finishes an external sign-in: the state must be unused, unexpired and from this browser; the
 * code is exchanged with the PKCE verifier; the ID token must validate. Then the linking rules.
 */
export const completeExternalSignIn = (input: ExternalCallback) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    if (input.state === null || input.state === "") return yield* new ExternalSignInStateInvalid()
    const now = yield* Clock.currentTimeMillis
    const stateHash = yield* hashSecret(input.state)
    const consumed = yield* Effect.flatMap(ExternalLogins, (r) => r.consume(stateHash, now))
    if (Option.isNone(consumed) || consumed.value.expiresAt <= now) return yield* new ExternalSignInStateInvalid()
    const login = consumed.value
    if (input.binding === undefined || !(yield* secretMatches(input.binding, login.browserBindingHash))) return yield* new ExternalSignInStateInvalid()
    if (input.error !== null) return yield* new ExternalSignInFailed({ detail: `the provider answered ${input.error.slice(0, 100)}` })
    if (input.code === null || input.code === "") return yield* new ExternalSignInFailed({ detail: "no authorization code" })
    const provider = yield* Effect.flatMap(IdentityProviders, (r) => r.findById(login.providerId)).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.fail(new ExternalSignInFailed({ detail: "the provider was removed" })), onSome: Effect.succeed })),
    )

    const client = yield* ExternalProviderClient
    const answer = yield* client.exchangeCode(
      provider.tokenEndpoint,
      { clientId: provider.clientId, clientSecret: yield* clientSecretOf(provider) },
      {
        grant_type: "authorization_code",
        code: input.code,
        redirect_uri: externalRedirectUriOf(settings),
        code_verifier: login.codeVerifier,
      },
    )
    if (answer.status !== 200) {
      const error =
        typeof answer.body === "object" && answer.body !== null && "error" in answer.body ? String(answer.body.error).slice(0, 100) : `HTTP ${answer.status}`
      return yield* new ExternalSignInFailed({ detail: `the token endpoint refused the code (${error})` })
    }
    const tokens = yield* Schema.decodeUnknown(TokenAnswer)(answer.body).pipe(
      Effect.mapError(() => new ExternalSignInFailed({ detail: "the token endpoint answered without an id_token" })),
    )
    const fromIdToken = yield* validateIdToken(provider, tokens.id_token, login.nonce, yield* client.getJson(provider.jwksUri))
    const claims = yield* withUserInfo(provider, fromIdToken, tokens.access_token)

    const storage = yield* Storage
    const decided = yield* storage.transaction(
      Effect.gen(function* () {
        const existing = yield* Effect.flatMap(IdentityLinks, (r) => r.findByIdentity(provider.issuer, claims.sub))
        if (Option.isSome(existing)) {
          if (login.linkUserId !== null && existing.value.userId !== login.linkUserId) return yield* new ExternalIdentityLinkedElsewhere()
          return { kind: "user" as const, userId: existing.value.userId, created: false, linked: false }
        }
        if (login.linkUserId !== null) {
          yield* newLink(login.linkUserId, provider, claims, now)
          return { kind: "user" as const, userId: login.linkUserId, created: false, linked: true }
        }
        if (!claims.emailVerified || claims.email === null || !isEmail(claims.email)) return yield* new ExternalEmailNotVerified()
        const holder = yield* Effect.flatMap(Users, (u) => u.findByEmail(claims.email!))
        if (Option.isSome(holder)) {
          // Same e-mail is not proof of the same person: the account's passkey must confirm (no silent takeover).
          const binding = yield* token(32)
          const offerId = yield* uuid
          yield* Effect.flatMap(LinkOffers, (r) =>
            Effect.gen(function* () {
              yield* r.insert({
                id: offerId,
                userId: holder.value.id,
                providerId: provider.id,
                issuer: provider.issuer,
                subject: claims.sub,
                email: claims.email,
                browserBindingHash: yield* hashSecret(binding),
                returnTo: login.returnTo,
                clientId: login.clientId,
                createdAt: now,
                expiresAt: now + settings.ceremonyTtlSeconds * 1000,
                consumedAt: null,
              })
            }),
          ).pipe(Effect.orDie)
          return { kind: "offer" as const, offerId, binding }
        }
        // Only an engine-wide provider (registered by the administrator) opens accounts. An RP's own
        // provider is run by that RP, which could claim anyone's address and keep signing into the
        // account its owner later enrols on (pre-account hijack); it signs in accounts linked to it.
        if (provider.ownerClientId !== null) return yield* new ExternalAccountCreationRefused()
        const userId = yield* uuid
        // The provider's `email_verified` is its word, not a proof to Signet: the address stays
        // unverified (out of certificates) until its owner proves it with a code (docs/identity.md).
        yield* Effect.flatMap(Users, (u) =>
          u.insert({
            id: userId,
            email: claims.email!,
            displayName: claims.name ?? claims.email!,
            createdAt: now,
            emailVerifiedAt: null,
          }),
        ).pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(new AlreadyExists({ what: `account for ${claims.email}` }))))
        yield* newLink(userId, provider, claims, now)
        return { kind: "user" as const, userId, created: true, linked: true }
      }),
    )
    if (decided.kind === "offer") {
      return { kind: "confirm-link", offerId: decided.offerId, binding: decided.binding, returnTo: login.returnTo } satisfies ExternalOutcome
    }
    const session = yield* openSignedInSession(decided.userId, `external:${provider.id}`)
    return {
      kind: "signed-in",
      userId: decided.userId,
      created: decided.created,
      linked: decided.linked,
      returnTo: login.returnTo,
      session: { sessionId: session.sessionId, expiresAt: session.expiresAt },
    } satisfies ExternalOutcome
  })

const liveOffer = (offerId: string, binding: string | undefined) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const offer = yield* Effect.flatMap(LinkOffers, (r) => r.findById(offerId))
    if (Option.isNone(offer) || offer.value.consumedAt !== null || offer.value.expiresAt <= now) return yield* new OperationExpired()
    if (binding === undefined || !(yield* secretMatches(binding, offer.value.browserBindingHash))) return yield* new OperationExpired()
    return offer.value
  })

/** What the link-confirmation page shows: which account and provider, and the passkey challenge for that account. */
export const requestLinkConfirmation = (offerId: string, binding: string | undefined) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const offer = yield* liveOffer(offerId, binding)
    const rp = yield* ceremonyRpFor(offer.clientId)
    const provider = yield* Effect.flatMap(IdentityProviders, (r) => r.findById(offer.providerId))
    const passkeys = yield* Effect.flatMap(Passkeys, (p) => p.listByUser(offer.userId))
    const challenge = yield* Effect.flatMap(Random, (r) => r.bytes(32))
    const { generateAuthenticationOptions } = yield* simpleWebAuthn
    const options = yield* Effect.promise(() =>
      generateAuthenticationOptions({
        rpID: rp.rpId,
        challenge: new Uint8Array(challenge),
        timeout: settings.ceremonyTtlSeconds * 1000,
        userVerification: "required",
        allowCredentials: passkeys.filter((p) => p.rpId === rp.rpId).map((p) => ({ id: p.id })),
      }),
    )
    const now = yield* Clock.currentTimeMillis
    const signinId = yield* uuid
    yield* Effect.flatMap(Ceremonies, (c) =>
      c.insert({
        id: signinId,
        kind: "sign-in",
        challenge: options.challenge,
        userId: offer.userId,
        email: null,
        displayName: null,
        clientId: rp.clientId,
        rpId: rp.rpId,
        createdAt: now,
        expiresAt: now + settings.ceremonyTtlSeconds * 1000,
        consumedAt: null,
        emailVerificationId: null,
      }),
    ).pipe(Effect.orDie)
    return {
      signinId,
      options,
      email: offer.email ?? "",
      provider: Option.match(provider, { onNone: () => offer.issuer, onSome: (p) => p.name }),
    }
  })

/**
 * Confirms a link offer with the account's passkey: the assertion must be the offered
 * account's and pass every WebAuthn check; then the link is written and the browser signed in.
 */
export const confirmLink = (input: {
  readonly offerId: string
  readonly signinId: string
  readonly assertion: Assertion
  readonly binding: string | undefined
}) =>
  Effect.gen(function* () {
    yield* liveOffer(input.offerId, input.binding)
    // The challenge is used up by the first attempt, successful or not (outside the transaction, so a refusal keeps it used).
    const ceremony = yield* Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.flatMap(Ceremonies, (c) => c.consume(input.signinId, now)))
    const storage = yield* Storage
    const offer = yield* storage.transaction(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const offer = yield* liveOffer(input.offerId, input.binding)
        if (Option.isNone(ceremony) || ceremony.value.kind !== "sign-in" || ceremony.value.expiresAt <= now || ceremony.value.userId !== offer.userId) {
          return yield* new OperationExpired()
        }
        const rp = yield* ceremonyRpFor(ceremony.value.clientId)
        const passkey = yield* registeredPasskey(input.assertion.id)
        if (passkey.userId !== offer.userId) return yield* new CredentialNotRegistered()
        const verified = yield* verifyAssertion(input.assertion, passkey, {
          challenge: ceremony.value.challenge,
          origins: rp.origins,
          rpId: ceremony.value.rpId,
        })
        yield* Effect.flatMap(Passkeys, (p) => p.recordUse(passkey.id, verified.newCounter, now))
        const used = yield* Effect.flatMap(LinkOffers, (r) => r.consume(offer.id, now))
        if (Option.isNone(used)) return yield* new OperationExpired()
        yield* Effect.flatMap(IdentityLinks, (r) =>
          r.insert({
            id: `${offer.id}`,
            userId: offer.userId,
            providerId: offer.providerId,
            issuer: offer.issuer,
            subject: offer.subject,
            email: offer.email,
            createdAt: now,
          }),
        ).pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(new ExternalIdentityLinkedElsewhere())))
        return offer
      }),
    )
    const session = yield* openSignedInSession(offer.userId, "passkey")
    return { userId: offer.userId, returnTo: offer.returnTo, session: { sessionId: session.sessionId, expiresAt: session.expiresAt } }
  })

/** A user's linked external identities, as `GET /v2/me` shows them. */
export const linkedIdentitiesOf = (userId: string) =>
  Effect.flatMap(IdentityLinks, (r) => r.listByUser(userId)).pipe(
    Effect.map((links) =>
      links.map((l) => ({
        id: l.id,
        providerId: l.providerId,
        issuer: l.issuer,
        subject: l.subject,
        email: l.email,
        createdAt: l.createdAt,
      })),
    ),
  )

/** Unlinks one of the user's external identities; another user's link id is not found. */
export const unlinkIdentity = (userId: string, linkId: string) =>
  Effect.flatMap(IdentityLinks, (r) => r.remove(linkId, userId)).pipe(
    Effect.flatMap((removed) => (removed ? Effect.succeed({ unlinked: true as const }) : Effect.fail(new ResourceNotFound({ what: "Linked identity" })))),
  )
