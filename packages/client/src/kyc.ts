/**
 * KYC of an RP's customers (docs/kyc.md), from the RP's backend with HTTP Basic (client id and client
 * secret): start a verification, submit the document, capture the face (the hosted page, a phone
 * handoff, or your own capture relayed to `/kyc/faceapi`), then read the verdict.
 */
import { basic, type SignetClient, unwrap } from "./client.ts"
import type { components } from "./openapi.ts"

type Schemas = components["schemas"]

/** The verdict of a verification: status, reasons, what the document says, and the scores. */
export type KycVerdict = Schemas["KycVerdict"]
/** A phone handoff: the phone link (`url`), its status URL and the code both screens show. */
export type KycHandoff = Schemas["KycHandoff"]
/** What the handoff's status URL answers. */
export type KycHandoffStatus = Schemas["KycHandoffStatus"]
/** A liveness session: the capture relay's `url` and the session token for it. */
export type KycLivenessSession = Schemas["KycLivenessSession"]

/** The KYC calls of one RP, bound to its credentials. */
export interface KycClient {
  /** starts (or finds) the verification of a customer */
  readonly start: (customerId: string, phoneNumber: string) => Promise<unknown>
  /** submits the document: the passport photo page, or an ID card's front then back (base64 JPEG) */
  readonly submitDocument: (customerId: string, images: ReadonlyArray<string>) => Promise<KycVerdict>
  /** opens a liveness session for a capture of the customer's face */
  readonly livenessSession: (customerId: string) => Promise<KycLivenessSession>
  /** relays captured frames (base64 JPEG) with a session's token; `confirmed` gives the transaction id */
  readonly relayCapture: (sessionToken: string, frames: ReadonlyArray<string>) => Promise<Schemas["KycCaptureResult"]>
  /** completes the face step with a confirmed capture */
  readonly submitFace: (customerId: string, livenessTransactionId: string) => Promise<KycVerdict>
  /** reads the verdict */
  readonly verdict: (customerId: string, options?: { readonly returnSelfie?: boolean }) => Promise<KycVerdict>
  /** opens a phone handoff (document and face on the customer's phone) */
  readonly handoff: (customerId: string) => Promise<KycHandoff>
  /** polls a handoff's status until it is `verified`, `needs_review` or `failed` (or `timeoutMs` passes) */
  readonly waitForHandoff: (handoffId: string, options?: { readonly intervalMs?: number; readonly timeoutMs?: number }) => Promise<KycHandoffStatus>
}

/** The KYC calls of the RP with these credentials. */
export const kycClient = (client: SignetClient, credentials: { readonly clientId: string; readonly clientSecret: string }): KycClient => {
  const headers = basic(credentials.clientId, credentials.clientSecret)
  return {
    start: async (customer_id, phone_number) => unwrap(await client.POST("/kyc/verifications", { body: { customer_id, phone_number }, headers })),
    submitDocument: async (customer_id, images) =>
      unwrap(await client.POST("/kyc/customers/document", { body: { customer_id, images: [...images] }, headers })),
    livenessSession: async (customer_id) => unwrap(await client.POST("/kyc/customers/liveness-session", { body: { customer_id }, headers })),
    relayCapture: async (token, frames) =>
      unwrap(await client.POST("/kyc/faceapi", { body: { frames: [...frames] }, headers: { authorization: `Bearer ${token}` } })),
    submitFace: async (customer_id, livenessTransactionId) =>
      unwrap(await client.POST("/kyc/customers/face", { body: { customer_id, livenessTransactionId }, headers })),
    verdict: async (customer_id, options = {}) =>
      unwrap(
        await client.POST("/kyc/customers/verification", {
          body: { customer_id, ...(options.returnSelfie === true ? { return_selfie: true } : {}) },
          headers,
        }),
      ),
    handoff: async (customer_id) => unwrap(await client.POST("/kyc/handoff", { body: { customer_id }, headers })),
    waitForHandoff: async (id, options = {}) => {
      const until = Date.now() + (options.timeoutMs ?? 600_000)
      for (;;) {
        const status = unwrap(await client.GET("/kyc/handoff/{id}/status", { params: { path: { id } } }))
        if (status.status === "verified" || status.status === "needs_review" || status.status === "failed" || Date.now() > until) return status
        await new Promise((r) => setTimeout(r, options.intervalMs ?? 2000))
      }
    },
  }
}
