/** A typed HTTP client for the Signet interface, over `fetch`, for tests and conformance runs. */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server"

/** An answer: status, headers and parsed JSON body (or text when not JSON). */
export interface Answer<T> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
}

/** The error body every failure carries. */
export interface ErrorBody {
  readonly error: string
  readonly error_description?: string
}

/** A token answer (sign-in and client credentials). */
export interface TokenAnswer {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly scope: string
  readonly sub?: string
}

/** The account endpoint's answer. */
export interface Account {
  readonly sub: string
  readonly email: string
  readonly displayName: string
  readonly clientId: string
  readonly scope: string
  readonly passkeys: ReadonlyArray<{ readonly id: string; readonly rpId: string; readonly algorithm: number }>
}

/** Client for one engine, rooted at its mounted base URL (e.g. `http://127.0.0.1:3000/api`). */
export class SignetClient {
  /**
   * Reads the verification code last e-mailed to an address (the engine's sandbox mailbox, or an
   * SMTP server a test runs); the enrolment flow needs it to prove the e-mail.
   */
  mailbox: ((email: string) => Promise<string>) | undefined

  constructor(
    readonly baseUrl: string,
    private readonly defaults: Record<string, string> = {},
  ) {}

  /** Any call; `body` is sent as JSON unless it is a string (sent as is). */
  async raw<T = unknown>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...this.defaults, ...options.headers }
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json"
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await response.text()
    let parsed: unknown = text
    if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") parsed = JSON.parse(text)
    return { status: response.status, headers: response.headers, body: parsed as T }
  }

  /** `POST /enrolment/email`: a one-time code to the address. */
  enrolmentEmail(body: { email: string }) {
    return this.raw<{ verificationId: string; expiresAt: number } | ErrorBody>("POST", "/enrolment/email", { body })
  }

  /** `POST /enrolment/email/verify`. */
  enrolmentEmailVerify(body: { verificationId: string; code: string }, accessToken?: string) {
    return this.raw<{ verificationId: string; email: string; verified: true } | ErrorBody>("POST", "/enrolment/email/verify", {
      body,
      ...(accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {}),
    })
  }

  /** `POST /enrolment/request`. */
  enrolmentRequest(body: { email: string; displayName?: string; clientId?: string; emailVerificationId?: string }, accessToken?: string) {
    return this.raw<{ enrolmentId: string; options: PublicKeyCredentialCreationOptionsJSON } | ErrorBody>("POST", "/enrolment/request", {
      body,
      ...(accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {}),
    })
  }

  /** `POST /enrolment/verify`. */
  enrolmentVerify(body: { enrolmentId: string; credential: RegistrationResponseJSON }) {
    return this.raw<{ userId: string; email: string; credentialId: string } | ErrorBody>("POST", "/enrolment/verify", { body })
  }

  /** `POST /signin/request`. */
  signinRequest(body: { clientId: string; email?: string }) {
    return this.raw<{ signinId: string; options: PublicKeyCredentialRequestOptionsJSON } | ErrorBody>("POST", "/signin/request", { body })
  }

  /** `POST /signin/verify`. */
  signinVerify(body: { signinId: string; assertion: AuthenticationResponseJSON }) {
    return this.raw<TokenAnswer | ErrorBody>("POST", "/signin/verify", { body })
  }

  /** `POST /oauth/token` with client credentials (client_secret_basic). */
  clientToken(clientId: string, clientSecret: string, scope?: string) {
    const form = new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) })
    return this.raw<TokenAnswer | ErrorBody>("POST", "/oauth/token", {
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}` },
    })
  }

  /** `GET /v2/me`. */
  me(accessToken?: string) {
    return this.raw<Account | ErrorBody>("GET", "/v2/me", accessToken === undefined ? {} : { headers: { authorization: `Bearer ${accessToken}` } })
  }
}

/** Narrows an answer to success or throws with its error, for test set-up steps. */
export const ok = <T>(answer: Answer<T | ErrorBody>): T => {
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body as T
}
