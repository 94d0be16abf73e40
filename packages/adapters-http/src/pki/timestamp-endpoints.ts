/** The built-in timestamp authority over HTTP (RFC 3161 §3.4): `application/timestamp-query` in, `application/timestamp-reply` out. */
import {
  answerTimestampRequest,
  certificateAuthority,
  countRequest,
  fromBase64,
  TimestampAuthorityResponse,
  timestampIdentity,
  toPem,
  TSA_ACCURACY_SECONDS,
  TSA_POLICY_OID,
  UnsupportedMediaType,
} from "@signet/core"
import { Effect } from "effect"
import { readBody } from "../http/body.ts"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"

/** Requests per minute per client IP (the endpoint takes no credential). */
export const TSA_REQUESTS_PER_MINUTE = 60

/** Largest accepted TimeStampReq in bytes (a request with a SHA-512 imprint and a nonce is about 100). */
export const TSA_MAX_REQUEST_BYTES = 16 * 1024

/** `POST /v2/tsa`: an RFC 3161 time-stamp request answered with a reply, the token signed by the engine's TSA. */
export const timestampEndpoint = endpoint({
  method: "POST",
  path: "/v2/tsa",
  tag: "Timestamps",
  auth: "none",
  summary:
    "RFC 3161 timestamp authority: a DER TimeStampReq (application/timestamp-query) in, a DER TimeStampResp (application/timestamp-reply) out; " +
    "a request the TSA cannot honour is answered inside the reply (status rejection with the RFC's failure bit)",
  response: { mediaType: "application/timestamp-reply" },
  errors: [
    { status: 413, description: "request over 16 KiB" },
    { status: 415, description: "not application/timestamp-query" },
    { status: 429, description: "`Rate limit exceeded. Please try again later.` (60 per minute per IP)" },
  ],
  handle: ({ request, requestId, clientIp }) =>
    Effect.gen(function* () {
      const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
      if (type !== "application/timestamp-query") return yield* new UnsupportedMediaType({ expected: "application/timestamp-query" })
      yield* countRequest(`tsa:${clientIp}`, TSA_REQUESTS_PER_MINUTE)
      const reply = yield* answerTimestampRequest(yield* readBody(request, TSA_MAX_REQUEST_BYTES))
      return new Response(new Uint8Array(reply), {
        headers: { "content-type": "application/timestamp-reply", "cache-control": "no-store", ...baseHeaders(requestId) },
      })
    }),
})

/** `GET /v2/tsa`: what a verifier of the built-in TSA's tokens needs: its policy and certificate with chain. */
export const timestampAuthorityEndpoint = endpoint({
  method: "GET",
  path: "/v2/tsa",
  tag: "Timestamps",
  auth: "none",
  summary: "The built-in timestamp authority: its policy OID, accuracy, and certificate (PEM) with the issuing CA's (the root is at GET /v2/ca)",
  response: TimestampAuthorityResponse,
  handle: () =>
    Effect.gen(function* () {
      const tsa = yield* timestampIdentity
      const ca = yield* certificateAuthority
      return {
        policy: TSA_POLICY_OID,
        accuracySeconds: TSA_ACCURACY_SECONDS,
        certificate: {
          serial: tsa.certificate.serial,
          subject: tsa.certificate.subject,
          notAfter: new Date(tsa.certificate.notAfter).toISOString(),
          pem: toPem(fromBase64(tsa.certificate.der)!),
        },
        chainPem: [toPem(fromBase64(ca.issuing.der)!)],
      }
    }),
})

/** Timestamp endpoints in document order. */
export const timestampEndpoints = [timestampEndpoint, timestampAuthorityEndpoint] as const
