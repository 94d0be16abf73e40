/** Enrolment, sign-in, the account endpoint and the JWKS (the token endpoint is in oidc.ts). */
import {
  Assertion,
  type BearerUser,
  completeEnrolment,
  completeSignInWithPasskey,
  confirmEmailVerification,
  countRequest,
  describeAccount,
  EmailAddress,
  EngineConfig,
  jwks,
  linkedIdentitiesOf,
  openHostedSession,
  OpenSessionResponse,
  PasskeyCreationOptions,
  PasskeyRequestOptions,
  RegistrationCredential,
  requestEnrolment,
  requestSignIn,
  requireConsole,
  signedInUserOf,
  signInHostedSession,
  SignInTokenResponse,
  startEmailVerification,
} from "@signet/core"
import { Effect, Option, Schema } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { reply } from "../http/respond.ts"
import { cookieValue, SESSION_COOKIE } from "../http/handler.ts"
import { sessionCookie } from "../http/cookies.ts"

/** `GET /session`: opens a hosted-page session (cookie) and returns its CSRF token. */
export const openSession = endpoint({
  method: "GET",
  path: "/session",
  tag: "Hosted pages",
  auth: "none",
  summary: "Open a hosted-page session: sets the session cookie and returns the CSRF token to echo in X-CSRF-Token",
  response: OpenSessionResponse,
  handle: ({ request }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      // A sign-in on the browser's previous session carries over to the new one (sign-in page → consent page).
      const s = yield* openHostedSession(cookieValue(request, SESSION_COOKIE))
      return reply(200, { csrfToken: s.csrfToken, expiresAt: Math.floor(s.expiresAt / 1000) }, { "set-cookie": sessionCookie(settings, s.sessionId) })
    }),
})

/** Enrolment requests per minute per client IP (the spec's limit); each one writes a ceremony row. */
export const ENROLMENT_REQUESTS_PER_MINUTE = 60
/**
 * The account the caller proves to be: the user signed in on the hosted-page session (cookie), or a
 * token issued to the Signet console. An RP's token is refused: a passkey added with it would let
 * that RP sign in to the account everywhere.
 */
const signedInCaller = (user: BearerUser | undefined, request: Request) =>
  user !== undefined ? Effect.as(requireConsole(user), Option.fromNullable(user.userId)) : signedInUserOf(cookieValue(request, SESSION_COOKIE))

/** Codes one client address may ask for per minute, and codes it may try (the per-address and per-verification limits are in core). */
const EMAIL_CODES_PER_MINUTE_PER_IP = 60
const EMAIL_CHECKS_PER_MINUTE_PER_IP = 120

/** `POST /enrolment/email`: a one-time code to the address, the first step of enrolment. */
export const enrolmentEmail = endpoint({
  method: "POST",
  path: "/enrolment/email",
  tag: "Identity",
  auth: "none",
  summary: "Send a one-time code to an e-mail address; enrolling a passkey without being signed in needs it (docs/identity.md)",
  body: Schema.Struct({ email: EmailAddress }),
  response: Schema.Struct({
    verificationId: Schema.String.annotations({ description: "give it with the code to /enrolment/email/verify, then to /enrolment/request" }),
    expiresAt: Schema.Int.annotations({ description: "Unix seconds; the code works until then (10 minutes)" }),
  }),
  errors: [
    {
      status: 400,
      description: "`email must be an e-mail address with a top-level domain` (also for control, bidirectional, invisible or fullwidth characters)",
    },
    {
      status: 429,
      description:
        "`Too many verification e-mails for this address: at most 5 per hour`, or `Rate limit exceeded. Please try again later.` (60 per minute per IP)",
    },
    { status: 502, description: "`E-mail could not be sent: <stage>`" },
  ],
  handle: ({ body, clientIp }) =>
    countRequest(`email-code:ip:${clientIp}`, EMAIL_CODES_PER_MINUTE_PER_IP).pipe(Effect.zipRight(startEmailVerification(body.email))),
})

/** `POST /enrolment/email/verify`: the code from the e-mail proves the address. */
export const enrolmentEmailVerify = endpoint({
  method: "POST",
  path: "/enrolment/email/verify",
  tag: "Identity",
  auth: "bearer-optional",
  summary: "Prove an e-mail address with the code sent to it; signed in as the account with that address, it marks the account's e-mail verified",
  body: Schema.Struct({ verificationId: Schema.String, code: Schema.String.annotations({ description: "the 8 digits from the e-mail" }) }),
  response: Schema.Struct({ verificationId: Schema.String, email: Schema.String, verified: Schema.Literal(true) }),
  errors: [
    { status: 400, description: "`E-mail verification code is wrong, used or expired` (5 wrong codes end a verification)" },
    { status: 429, description: "`Rate limit exceeded. Please try again later.` (120 per minute per IP)" },
  ],
  handle: ({ body, user, request, clientIp }) =>
    Effect.gen(function* () {
      yield* countRequest(`email-check:ip:${clientIp}`, EMAIL_CHECKS_PER_MINUTE_PER_IP)
      const caller = yield* signedInCaller(user, request)
      return yield* confirmEmailVerification({
        verificationId: body.verificationId,
        code: body.code,
        ...(Option.isSome(caller) ? { signedInUserId: caller.value } : {}),
      })
    }),
})

/** `POST /enrolment/request`. */
export const enrolmentRequest = endpoint({
  method: "POST",
  path: "/enrolment/request",
  tag: "Identity",
  auth: "bearer-optional",
  summary:
    "Start passkey enrolment: for a new account or to add a passkey, with a proven e-mail (emailVerificationId) or signed in as the account (bearer token or hosted session)",
  body: Schema.Struct({
    email: EmailAddress,
    displayName: Schema.optional(Schema.String),
    clientId: Schema.optional(Schema.String).annotations({ description: "RP whose WebAuthn RP id and origins apply; the engine's own when absent" }),
    emailVerificationId: Schema.optional(Schema.String).annotations({
      description: "a verification of this e-mail proven with its code (/enrolment/email/verify); used up when the passkey is stored",
    }),
  }),
  response: Schema.Struct({ enrolmentId: Schema.String, options: PasskeyCreationOptions }),
  errors: [
    {
      status: 400,
      description: "`email must be an e-mail address with a top-level domain` (also for control, bidirectional, invisible or fullwidth characters)",
    },
    {
      status: 403,
      description:
        "`Verify this e-mail address first (POST /enrolment/email), or sign in to add a passkey to your own account`, `Unknown RP client_id`, `RP registration not approved. Status: <status>`",
    },
    { status: 429, description: "`Rate limit exceeded. Please try again later.` (60 per minute per IP)" },
  ],
  handle: ({ body, user, request, clientIp }) =>
    Effect.gen(function* () {
      yield* countRequest(`enrolment:${clientIp}`, ENROLMENT_REQUESTS_PER_MINUTE)
      const caller = yield* signedInCaller(user, request)
      return yield* requestEnrolment({
        email: body.email,
        ...(body.displayName !== undefined ? { displayName: body.displayName } : {}),
        ...(body.clientId !== undefined ? { clientId: body.clientId } : {}),
        ...(Option.isSome(caller) ? { signedInUserId: caller.value } : {}),
        ...(body.emailVerificationId !== undefined ? { emailVerificationId: body.emailVerificationId } : {}),
      })
    }),
})

/** `POST /enrolment/verify`. */
export const enrolmentVerify = endpoint({
  method: "POST",
  path: "/enrolment/verify",
  tag: "Identity",
  auth: "none",
  summary: "Finish enrolment: verify the attestation and store the passkey",
  body: Schema.Struct({ enrolmentId: Schema.String, credential: RegistrationCredential }),
  response: Schema.Struct({ userId: Schema.String, email: Schema.String, credentialId: Schema.String }),
  errors: [
    {
      status: 403,
      description:
        "the binding checks (`Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `Passkey was created for a different site (RP ID mismatch)`, `User verification required — biometric or PIN not confirmed`) or `Passkey registration failed: <why>`",
    },
    { status: 409, description: "`passkey already exists` or `account for <email> already exists`" },
    {
      status: 410,
      description: "`Operation expired or not found`: the enrolment is unknown, used or older than five minutes, or its e-mail proof was used meanwhile",
    },
  ],
  handle: ({ body }) => completeEnrolment(body),
})

/** `POST /signin/request`. */
export const signinRequest = endpoint({
  method: "POST",
  path: "/signin/request",
  tag: "Identity",
  auth: "none",
  summary: "Start passkey sign-in for an RP",
  body: Schema.Struct({ clientId: Schema.String, email: Schema.optional(EmailAddress) }),
  response: Schema.Struct({ signinId: Schema.String, options: PasskeyRequestOptions }),
  errors: [{ status: 403, description: "`Unknown RP client_id` or `RP registration not approved. Status: <status>`" }],
  handle: ({ body }) => requestSignIn({ clientId: body.clientId, ...(body.email !== undefined ? { email: body.email } : {}) }),
})

/** `POST /signin/verify`. */
export const signinVerify = endpoint({
  method: "POST",
  path: "/signin/verify",
  tag: "Identity",
  auth: "none",
  summary: "Finish sign-in: verify the passkey assertion and issue a user access token (scope `openid basic`)",
  body: Schema.Struct({ signinId: Schema.String, assertion: Assertion }),
  response: Schema.extend(SignInTokenResponse, Schema.Struct({ sub: Schema.String })),
  errors: [
    {
      status: 403,
      description:
        "one of the assertion messages: `Passkey signature verification failed`, `Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `User verification required — biometric or PIN not confirmed`, `Passkey was created for a different site (RP ID mismatch)`, `Credential not registered`, `Passkey signature counter did not increase — possible cloned authenticator`",
    },
    { status: 410, description: "`Operation expired or not found`" },
  ],
  // On a hosted page (session cookie, CSRF already checked) the session is signed in too, for /authorize.
  handle: ({ body, request }) =>
    Effect.gen(function* () {
      const done = yield* completeSignInWithPasskey(body)
      const session = cookieValue(request, SESSION_COOKIE)
      if (session !== undefined) yield* signInHostedSession(session, { userId: done.userId, amr: done.amr })
      return done.answer
    }),
})

/** `GET /.well-known/jwks.json`. */
export const jwksEndpoint = endpoint({
  method: "GET",
  path: "/.well-known/jwks.json",
  tag: "Identity",
  auth: "none",
  summary: "Public keys that verify this engine's access tokens",
  response: Schema.Struct({ keys: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })) }),
  handle: () => jwks,
})

/** `GET /v2/me`: the smallest bearer-protected endpoint. */
export const me = endpoint({
  method: "GET",
  path: "/v2/me",
  tag: "Identity",
  auth: "bearer",
  summary: "The signed-in user, their passkeys and their linked external identities",
  response: Schema.Struct({
    sub: Schema.String,
    email: Schema.String,
    displayName: Schema.String,
    clientId: Schema.String,
    scope: Schema.String,
    passkeys: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        rpId: Schema.String,
        algorithm: Schema.Int,
        backedUp: Schema.Boolean,
        createdAt: Schema.Int,
        lastUsedAt: Schema.NullOr(Schema.Int),
      }),
    ),
    identities: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        providerId: Schema.String,
        issuer: Schema.String,
        subject: Schema.String,
        email: Schema.NullOr(Schema.String),
        createdAt: Schema.Int,
      }),
    ).annotations({ description: "external identities linked to the account (docs/identity-providers.md)" }),
  }),
  handle: ({ user }) =>
    Effect.gen(function* () {
      const u = user!
      const account = yield* describeAccount(u.userId)
      return {
        sub: account.user.id,
        email: account.user.email,
        displayName: account.user.displayName,
        clientId: u.clientId,
        scope: u.scope.join(" "),
        passkeys: account.passkeys,
        identities: yield* linkedIdentitiesOf(u.userId),
      }
    }),
})

/** Identity endpoints in the order they appear in the document. */
export const identityEndpoints = [
  openSession,
  enrolmentEmail,
  enrolmentEmailVerify,
  enrolmentRequest,
  enrolmentVerify,
  signinRequest,
  signinVerify,
  jwksEndpoint,
  me,
] as const
