/**
 * A typed HTTP client for the Signet interface, for tests and conformance runs: `node:http` with
 * kept-alive connections for `http:` engines, `fetch` otherwise.
 */
import { Agent, request as httpRequest, type IncomingMessage } from "node:http"
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

// One pool of kept-alive connections for every client in the process. Benchmarks drive the engine
// with a load generator on the same machine: fetch (undici) spends about twice the CPU of
// node:http per call, CPU the engine then lacks. Idle sockets do not keep the process alive.
const keptAlive = new Agent({ keepAlive: true })

// As fetch's text(): UTF-8, a byte-order mark dropped, bad bytes replaced.
const utf8 = new TextDecoder()
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const BODY_HEADERS = new Set(["content-encoding", "content-language", "content-location", "content-type"])
const CROSS_ORIGIN_DROPPED = new Set(["authorization", "proxy-authorization", "cookie", "host"])

interface Exchanged {
  readonly status: number
  readonly rawHeaders: ReadonlyArray<string>
  readonly text: string
}

/** One exchange over node:http; a kept-alive connection the server closed just before it is reused is retried once, as the request never reached it. */
const exchange = (url: URL, method: string, headers: Record<string, string>, body: string | undefined, retried = false): Promise<Exchanged> =>
  new Promise((resolve, reject) => {
    let answered = false
    const req = httpRequest(url, { method, headers, agent: keptAlive }, (res: IncomingMessage) => {
      answered = true
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("error", (error) => reject(new TypeError("terminated", { cause: error })))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, text: utf8.decode(Buffer.concat(chunks)) }))
    })
    req.on("error", (error: Error & { readonly code?: string }) => {
      if (!answered && !retried && req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
        resolve(exchange(url, method, headers, body, true))
        return
      }
      // fetch's shape: a TypeError whose cause is the socket's error
      reject(new TypeError("fetch failed", { cause: error }))
    })
    req.end(body)
  })

/** What `fetch` sends after a redirect (Fetch §4.4): GET without a body after 303 (and 301/302 of a POST), no credentials to another origin. */
const redirected = async (from: URL, status: number, location: string, method: string, headers: Record<string, string>, body: string | undefined) => {
  const to = new URL(location, from)
  const toGet = (status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")
  const kept = Object.entries(headers).filter(
    ([name]) => !(toGet && BODY_HEADERS.has(name.toLowerCase())) && !(to.origin !== from.origin && CROSS_ORIGIN_DROPPED.has(name.toLowerCase())),
  )
  return fetch(to, { method: toGet ? "GET" : method, headers: Object.fromEntries(kept), ...(toGet || body === undefined ? {} : { body }) })
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
    const url = new URL(`${this.baseUrl}${path}`)
    // fetch refuses a GET or HEAD with a body; it says so in its own words
    if (url.protocol !== "http:" || (body !== undefined && (method === "GET" || method === "HEAD"))) {
      return answerOf(await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) }))
    }
    const sent =
      body === undefined || Object.keys(headers).some((h) => h.toLowerCase() === "content-length")
        ? headers
        : { ...headers, "content-length": String(Buffer.byteLength(body)) }
    const got = await exchange(url, method, sent, body)
    const location = REDIRECTS.has(got.status) ? headerOf(got.rawHeaders, "location") : undefined
    // Redirects are followed, as fetch does: the first hop here, the rest by fetch.
    if (location !== undefined) return answerOf(await redirected(url, got.status, location, method, headers, body))
    let received: Headers | undefined
    const answer = {
      status: got.status,
      // Headers are made when read: most callers read only the body.
      get headers() {
        received ??= headersOf(got.rawHeaders)
        return received
      },
      body: parsedBody(headerOf(got.rawHeaders, "content-type"), got.text) as T,
    }
    return answer
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

/** A fetch response as an answer. */
const answerOf = async <T>(response: Response): Promise<Answer<T>> => {
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: parsedBody(response.headers.get("content-type") ?? undefined, text) as T }
}

/** A JSON body parsed, anything else as text. */
const parsedBody = (contentType: string | undefined, text: string): unknown => ((contentType ?? "").includes("json") && text !== "" ? JSON.parse(text) : text)

/** The first value of a header in Node's raw name/value list. */
const headerOf = (raw: ReadonlyArray<string>, name: string): string | undefined => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1]
  return undefined
}

/** Node's raw header list as `Headers`, repeated headers joined as fetch joins them. */
const headersOf = (raw: ReadonlyArray<string>): Headers => {
  const headers = new Headers()
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return headers
}

/** Narrows an answer to success or throws with its error, for test set-up steps. */
export const ok = <T>(answer: Answer<T | ErrorBody>): T => {
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body as T
}
