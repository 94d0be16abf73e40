/**
 * Hosted capture and phone handoff endpoints. The browser side holds only a liveness session
 * token (desktop, `Authorization: Bearer`) or a handoff id (phone, in the path): both are the
 * same kind of random capability, answered with status and reasons only. docs/kyc.md.
 */
import {
  captureStatus,
  EngineConfig,
  finishHostedCapture,
  handoffStatus,
  KycCaptureFinishBody,
  KycCaptureStatusView,
  KycCustomerBody,
  KycHandoff,
  KycHandoffDocumentBody,
  KycHandoffStatus,
  openHandoff,
  submitHandoffDocument,
} from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { basicClient, KYC_IMAGE_BODY_BYTES, withKycFor, type KycEndpointOptions } from "./endpoints.ts"

const bearerOf = (request: Request) => /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1]

const NOT_FOUND = { status: 404, description: "`KYC verification not found` (unknown, superseded or expired session token / handoff id)" }
const LIMIT_120 = {
  status: 429,
  description: "`Rate limit exceeded. Please try again later.` (120 per minute per IP, shared by the capture relay and the phone handoff)",
}

/** The hosted-capture and handoff endpoints, with the same providers and vault as the KYC endpoints. */
export const kycHandoffEndpointsFor = (options: KycEndpointOptions) => {
  const withKyc = withKycFor(options)
  const tag = "Identity verification"
  // Inside withKyc: a server without KYC adapters answers 503 before it looks at credentials or body.
  const client = (request: Request) => withKyc(basicClient(request))

  const status = endpoint({
    method: "GET",
    path: "/kyc/capture/status",
    tag,
    auth: "capture-token",
    summary: "Hosted capture: status and reasons of the session token's verification (`Authorization: Bearer <session token>`)",
    response: KycCaptureStatusView,
    errors: [NOT_FOUND, LIMIT_120],
    handle: ({ request, clientIp }) => withKyc(captureStatus(bearerOf(request), clientIp, "relay")),
  })

  const finish = endpoint({
    method: "POST",
    path: "/kyc/capture/finish",
    tag,
    auth: "capture-token",
    body: KycCaptureFinishBody,
    summary: "Hosted capture: complete the face step with the relay's `transactionId` (`Authorization: Bearer <session token>`)",
    response: KycCaptureStatusView,
    errors: [
      NOT_FOUND,
      LIMIT_120,
      {
        status: 409,
        description:
          "`This verification is already verified`, `Submit the document before the liveness step`, `Resubmit the document before the liveness step`",
      },
      { status: 422, description: "`A liveness transaction id is required`" },
    ],
    handle: ({ body, request, clientIp }) => withKyc(finishHostedCapture(bearerOf(request), body.transactionId, clientIp)),
  })

  const create = endpoint({
    method: "POST",
    path: "/kyc/handoff",
    tag,
    auth: "basic",
    client,
    body: KycCustomerBody,
    summary: "RP backend (HTTP Basic): hand a customer's capture over to their phone: `handoffId`, `url` of the phone page, `code`, `expiresIn`",
    response: KycHandoff,
    errors: [
      { status: 401, description: "`invalid_client`" },
      { status: 403, description: "`KYC is not enabled for this RP`, `rp_urn <urn> belongs to another RP`" },
      { status: 404, description: "`KYC verification not found`" },
      { status: 409, description: "`rp_urn <urn> does not belong to this customer_id: ...`" },
      { status: 422, description: "`customer_id is required`" },
      { status: 429, description: "`Rate limit exceeded. Please try again later.` (20 per minute per IP)" },
    ],
    handle: ({ body, client, clientIp }) =>
      withKyc(
        Effect.gen(function* () {
          const { basePath } = yield* EngineConfig
          return yield* openHandoff(client!.clientId, body, clientIp, basePath)
        }),
      ),
  })

  const handoffState = endpoint({
    method: "GET",
    path: "/kyc/handoff/{id}/status",
    tag,
    auth: "none",
    summary: "Phone handoff: status and reasons of the handoff's verification, and its code (the desktop polls this)",
    response: KycHandoffStatus,
    errors: [NOT_FOUND, LIMIT_120],
    handle: ({ params, clientIp }) => withKyc(handoffStatus(params["id"] ?? "", clientIp)),
  })

  const handoffDocument = endpoint({
    method: "POST",
    path: "/kyc/handoff/{id}/document",
    tag,
    auth: "none",
    body: KycHandoffDocumentBody,
    maxBodyBytes: KYC_IMAGE_BODY_BYTES,
    summary: "Phone handoff: the document captured on the phone (`images` base64 JPEG, ID front then back, or the passport photo page)",
    response: KycCaptureStatusView,
    errors: [
      NOT_FOUND,
      LIMIT_120,
      { status: 409, description: "`This verification is already verified`" },
      { status: 413, description: "body above 15 MiB" },
      { status: 422, description: "`At least one document image is required`" },
    ],
    handle: ({ params, body, clientIp }) => withKyc(submitHandoffDocument(params["id"] ?? "", body, clientIp)),
  })

  return [status, finish, create, handoffState, handoffDocument] as const
}
