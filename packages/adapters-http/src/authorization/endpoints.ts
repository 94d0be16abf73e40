/** Step-up (docs/authorization.md#step-up): a fresh passkey approval before decryption, revocation and secret rotation. */
import {
  requestStepUp,
  STEP_UP_PROOF_TTL_SECONDS,
  StepUpChallengeRequest,
  StepUpChallengeResponse,
  StepUpVerifyRequest,
  StepUpVerifyResponse,
  verifyStepUp,
} from "@signet/core"
import { endpoint } from "../http/endpoint.ts"

/** `POST /v2/step-up/challenge`. */
export const stepUpChallenge = endpoint({
  method: "POST",
  path: "/v2/step-up/challenge",
  tag: "Authorization",
  auth: "bearer",
  summary: "Start a step-up for an action: WebAuthn request options for the token's user, bound to the token's client and the action",
  body: StepUpChallengeRequest,
  response: StepUpChallengeResponse,
  handle: ({ user, body }) => requestStepUp(user!, body.action),
})

/** `POST /v2/step-up/verify`. */
export const stepUpVerify = endpoint({
  method: "POST",
  path: "/v2/step-up/verify",
  tag: "Authorization",
  auth: "bearer",
  summary: `Finish a step-up: the proof for the Signet-Step-Up header, usable once within ${STEP_UP_PROOF_TTL_SECONDS} s, by the same user and client, for that action`,
  body: StepUpVerifyRequest,
  response: StepUpVerifyResponse,
  errors: [
    { status: 403, description: "one of the assertion messages, or `Credential not registered` (a passkey of another user)" },
    { status: 410, description: "`Operation expired or not found`: unknown, used, expired, or started by another user or client" },
  ],
  handle: ({ user, body }) => verifyStepUp(user!, body),
})

/** Step-up endpoints in document order. */
export const authorizationEndpoints = [stepUpChallenge, stepUpVerify] as const
