/** The signing-token flow: `/ssc/token`, `/ssc/challenge`, `/ssc/finalize`. */
import {
  finalizeOperation,
  issueSigningToken,
  openOperation,
  SscChallengeRequest,
  SscChallengeResponse,
  SscFinalizeRequest,
  SscFinalizeResponse,
  SscTokenRequest,
  SscTokenResponse,
} from "@signet/core"
import { endpoint } from "../http/endpoint.ts"

const ASSERTION_403 =
  "`Passkey signature verification failed`, `Challenge mismatch — dynamic linking failed`, `Origin mismatch — possible phishing attack`, `User verification required — biometric or PIN not confirmed`, `Passkey was created for a different site (RP ID mismatch)`, `Credential not registered`"

/** `POST /ssc/token`. */
export const sscToken = endpoint({
  method: "POST",
  path: "/ssc/token",
  tag: "Signing-token flow",
  auth: "none",
  summary: "Issue a signing token for one document hash and LOA (RP server only: carries the SSC secret)",
  body: SscTokenRequest,
  response: SscTokenResponse,
  errors: [
    {
      status: 403,
      description:
        "`Unknown RP client_id`, `Invalid client credentials`, `RP registration not approved. Status: <status>`, `Requested LOA <loa> exceeds RP maximum <loa>`, `LOA-4 requires KYC-verified RP`",
    },
    { status: 404, description: "`User not found for email: <email>`, `No credential found for user`" },
    { status: 429, description: "`Daily signing limit exceeded (…)`, `Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body }) => issueSigningToken(body),
})

/** `POST /ssc/challenge`. */
export const sscChallenge = endpoint({
  method: "POST",
  path: "/ssc/challenge",
  tag: "Signing-token flow",
  auth: "none",
  summary: "Open a signing operation (five minutes) with a challenge linked to the document hash",
  body: SscChallengeRequest,
  response: SscChallengeResponse,
  errors: [
    { status: 401, description: "`Invalid or expired token`" },
    {
      status: 403,
      description: "`RP origin not authorized: <origin>`, `documentHash does not match the signing token`, `RP registration not approved. Status: <status>`",
    },
    { status: 429, description: "`Rate limit exceeded. Please try again later.`" },
  ],
  handle: ({ body, clientIp }) => openOperation(body, clientIp),
})

/** `POST /ssc/finalize`. */
export const sscFinalize = endpoint({
  method: "POST",
  path: "/ssc/finalize",
  tag: "Signing-token flow",
  auth: "none",
  summary: "Verify the passkey assertion against the operation and sign (once)",
  body: SscFinalizeRequest,
  response: SscFinalizeResponse,
  errors: [
    { status: 403, description: `${ASSERTION_403}, \`documentHash does not match the signing token\`` },
    { status: 410, description: "`Operation expired or not found`" },
    { status: 429, description: "`Rate limit exceeded. Please try again later.` (5 per minute per operation and IP)" },
  ],
  handle: ({ body, clientIp }) => finalizeOperation(body, clientIp),
})

/** Signing-token endpoints in document order. */
export const sscEndpoints = [sscToken, sscChallenge, sscFinalize] as const
