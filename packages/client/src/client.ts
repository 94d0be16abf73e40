/** The typed HTTP client: openapi-fetch over the engine's OpenAPI types, and the one error every helper throws. */
import createClient, { type Client } from "openapi-fetch"
import type { paths } from "./openapi.ts"

/** A client for every endpoint of the engine's OpenAPI document, typed by path, method, body and answer. */
export type SignetClient = Client<paths>

/** Where the engine is and how to reach it. */
export interface SignetClientOptions {
  /** the engine's mount point, e.g. `https://signet.example.com/api` */
  readonly baseUrl: string
  /** a `fetch` of your own (tests, proxies); the global one by default */
  readonly fetch?: typeof globalThis.fetch
}

/** Makes a typed client for the engine mounted at `baseUrl`. */
export const createSignetClient = (options: SignetClientOptions): SignetClient =>
  createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ""), ...(options.fetch !== undefined ? { fetch: options.fetch } : {}) })

/** An answer other than 2xx: the status and the engine's `{ "error": <message> }` (docs/errors.md). */
export class SignetError extends Error {
  override readonly name = "SignetError"
  constructor(
    /** the HTTP status */
    readonly status: number,
    /** the engine's message, as its `error` field says it */
    readonly error: string,
  ) {
    super(`${status} ${error}`)
  }
}

/** The data of a 2xx answer of openapi-fetch, or a thrown `SignetError` with the engine's message. */
export const unwrap = <T>(result: { readonly data?: T; readonly error?: unknown; readonly response: Response }): T => {
  if (result.response.ok && result.data !== undefined) return result.data
  const body = result.error
  const message =
    typeof body === "object" && body !== null && "error" in body && typeof body.error === "string"
      ? body.error
      : typeof body === "string" && body !== ""
        ? body
        : result.response.statusText || "request failed"
  throw new SignetError(result.response.status, message)
}

/** The `Authorization` header of a bearer token. */
export const bearer = (accessToken: string): { readonly authorization: string } => ({ authorization: `Bearer ${accessToken}` })

/** The `Authorization` header of HTTP Basic with an RP's client id and client secret (the KYC endpoints). */
export const basic = (clientId: string, clientSecret: string): { readonly authorization: string } => ({
  authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}`,
})
