/**
 * The authorization endpoint (OpenID Connect Core §3.1.2, RFC 6749 §4.1, RFC 7636, RFC 9207):
 * the authorization code flow only, PKCE S256 for every client, exact redirect URI match.
 * Pure decisions over storage; the HTTP adapter turns the outcome into a redirect or a page.
 */
import { Clock, Effect, Option } from "effect"
import { EngineConfig, issuerOf } from "../ports/engine-config.ts"
import { token, uuid } from "../ports/random.ts"
import { AuthorizationCodes, Consents } from "./ports.ts"
import { hashSecret } from "../kernel/secrets.ts"
import { findRelyingParty } from "../rp/relying-parties.ts"
import type { SessionSignIn } from "./model.ts"
import { OIDC_SCOPES } from "./model.ts"

/** Lifetime of an authorization code (RFC 9700 §2.1.1 and OIDC: short, used once). */
export const CODE_TTL_SECONDS = 60

/** What the authorization endpoint decided. */
export type AuthorizeOutcome =
  /** the client or redirect URI cannot be trusted: show the user an error, never redirect (RFC 6749 §4.1.2.1) */
  | { readonly _tag: "ErrorPage"; readonly error: string; readonly description: string }
  /** back to the RP: with `code`, or with `error` */
  | { readonly _tag: "Redirect"; readonly location: string }
  /** nobody is signed in on the hosted session: sign in first, then come back */
  | { readonly _tag: "SignIn"; readonly clientId: string }
  /** the user has not allowed these scopes for this client yet */
  | { readonly _tag: "Consent"; readonly clientName: string; readonly scope: ReadonlyArray<string> }

/** The user's answer on the consent page. */
export type ConsentDecision = "allow" | "deny"

const PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "prompt",
  "response_mode",
  "request",
  "request_uri",
] as const

/** Appends query parameters to a registered redirect URI (which may carry its own query). */
const withQuery = (uri: string, params: Record<string, string | undefined>): string => {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v)
  return url.toString()
}

/**
 * Decides an authorization request for the user signed in on the hosted session (if any).
 * `decision` is the consent page's answer (`POST /authorize/consent`).
 */
export const authorize = (query: URLSearchParams, signIn: Option.Option<SessionSignIn>, decision?: ConsentDecision) =>
  Effect.gen(function* () {
    const settings = yield* EngineConfig
    const issuer = issuerOf(settings)
    const one = (name: string) => query.get(name) ?? undefined
    const clientId = one("client_id")
    if (clientId === undefined || clientId === "")
      return { _tag: "ErrorPage", error: "invalid_request", description: "client_id is required" } satisfies AuthorizeOutcome
    const rp = yield* findRelyingParty(clientId)
    if (Option.isNone(rp)) return { _tag: "ErrorPage", error: "invalid_client", description: "unknown client_id" } satisfies AuthorizeOutcome
    if (rp.value.status !== "approved") {
      return {
        _tag: "ErrorPage",
        error: "unauthorized_client",
        description: `RP registration not approved. Status: ${rp.value.status}`,
      } satisfies AuthorizeOutcome
    }
    const redirectUri = one("redirect_uri")
    if (redirectUri === undefined) return { _tag: "ErrorPage", error: "invalid_request", description: "redirect_uri is required" } satisfies AuthorizeOutcome
    // Exact string comparison (RFC 9700 §4.1.3): no prefix, wildcard or normalisation.
    if (!rp.value.redirectUris.includes(redirectUri) || query.getAll("redirect_uri").length > 1 || query.getAll("client_id").length > 1) {
      return { _tag: "ErrorPage", error: "invalid_request", description: "redirect_uri is not registered for this client" } satisfies AuthorizeOutcome
    }
    const state = one("state")
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      _tag: "Redirect",
      location: withQuery(redirectUri, { error, error_description: description, state, iss: issuer }),
    })

    const repeated = PARAMS.find((p) => query.getAll(p).length > 1)
    if (repeated !== undefined) return fail("invalid_request", `${repeated} is given more than once`)
    if (one("request") !== undefined) return fail("request_not_supported", "request objects are not supported")
    if (one("request_uri") !== undefined) return fail("request_uri_not_supported", "request_uri is not supported")
    if (one("response_type") !== "code") return fail("unsupported_response_type", "only response_type=code is offered")
    const responseMode = one("response_mode")
    if (responseMode !== undefined && responseMode !== "query") return fail("invalid_request", "only response_mode=query is offered")
    const scope = [...new Set((one("scope") ?? "").split(" ").filter((s) => s.length > 0))]
    if (!scope.includes("openid")) return fail("invalid_scope", "scope must include openid")
    const unknown = scope.find((s) => !OIDC_SCOPES.includes(s))
    if (unknown !== undefined) return fail("invalid_scope", `scope ${unknown} is not offered (${OIDC_SCOPES.join(" ")})`)
    const challenge = one("code_challenge")
    if (challenge === undefined) return fail("invalid_request", "code_challenge is required (PKCE with S256)")
    if (one("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256")
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier")
    const prompt = (one("prompt") ?? "").split(" ").filter((p) => p.length > 0)
    if (prompt.includes("none") && prompt.length > 1) return fail("invalid_request", "prompt=none cannot be combined with other values")
    if (prompt.includes("login") || prompt.includes("select_account"))
      return fail("invalid_request", "prompt=login and prompt=select_account are not supported")

    if (Option.isNone(signIn)) {
      if (prompt.includes("none")) return fail("login_required", "nobody is signed in")
      return { _tag: "SignIn", clientId } satisfies AuthorizeOutcome
    }
    const user = signIn.value
    const now = yield* Clock.currentTimeMillis
    const consents = yield* Consents
    const consent = yield* consents.find(user.userId, clientId)
    const granted = Option.match(consent, { onNone: () => [] as ReadonlyArray<string>, onSome: (c) => c.scope })
    const covered = scope.every((s) => granted.includes(s))
    if (decision === "deny") return fail("access_denied", "the user declined")
    if (decision !== "allow" && (!covered || prompt.includes("consent"))) {
      if (prompt.includes("none")) return fail("consent_required", "the user has not allowed these scopes for this client")
      return { _tag: "Consent", clientName: rp.value.name, scope } satisfies AuthorizeOutcome
    }
    if (decision === "allow") {
      yield* consents.save({ userId: user.userId, clientId, scope: [...new Set([...granted, ...scope])], grantedAt: now })
    }
    const code = yield* token(32)
    yield* Effect.flatMap(AuthorizationCodes, (codes) =>
      Effect.gen(function* () {
        yield* codes.insert({
          codeHash: yield* hashSecret(code),
          clientId,
          userId: user.userId,
          redirectUri,
          scope,
          nonce: one("nonce") ?? null,
          codeChallenge: challenge,
          authTime: user.authTime,
          amr: user.amr,
          familyId: yield* uuid,
          createdAt: now,
          expiresAt: now + CODE_TTL_SECONDS * 1000,
          consumedAt: null,
        })
      }),
    ).pipe(Effect.orDie)
    return { _tag: "Redirect", location: withQuery(redirectUri, { code, state, iss: issuer }) } satisfies AuthorizeOutcome
  })
