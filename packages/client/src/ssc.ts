/**
 * The signing-token flow (docs/ssc.md, docs/signing-frame.md): the RP's server asks for a signing token
 * with its SSC secret, and its page embeds the signing frame with the token in the URL fragment.
 */
import { type SignetClient, unwrap } from "./client.ts"
import type { paths } from "./openapi.ts"

/** What `POST /ssc/token` takes: the RP's client id, its **SSC secret**, the document's hash and the LOA. */
export interface SigningTokenRequest {
  readonly clientId: string
  /** the RP's SSC secret (not its client secret); never send it to a browser */
  readonly sscSecret: string
  /** hex SHA-256 of the document */
  readonly documentHash: string
  readonly loa?: "LOA-2" | "LOA-4"
  /** names the signer (required for LOA-4); without it the token is for an anonymous LOA-2 signing */
  readonly signerEmail?: string
}

/** The answer of `POST /ssc/token`. */
export type SigningToken = paths["/ssc/token"]["post"]["responses"][200]["content"]["application/json"]

/** Asks for a signing token (RP server only: it carries the SSC secret). */
export const requestSigningToken = async (client: SignetClient, request: SigningTokenRequest): Promise<SigningToken> =>
  unwrap(
    await client.POST("/ssc/token", {
      body: {
        clientId: request.clientId,
        clientSecret: request.sscSecret,
        documentHash: request.documentHash,
        loa: request.loa ?? "LOA-2",
        ...(request.signerEmail !== undefined ? { signerEmail: request.signerEmail } : {}),
      },
    }),
  )

/** What the signing frame's URL needs. */
export interface SigningFrameParameters {
  /** the engine's mount point, e.g. `https://signet.example.com/api` */
  readonly baseUrl: string
  readonly clientId: string
  /** the parent page's origin (`location.origin`): one of the RP's signing origins */
  readonly origin: string
  /** the name shown to the signer */
  readonly documentName: string
}

const frame = (baseUrl: string, clientId: string, fragment: Record<string, string>): string => {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/ssc/frame`)
  url.searchParams.set("client_id", clientId)
  // Everything but the client id goes in the fragment, which browsers never send to a server.
  url.hash = new URLSearchParams(fragment).toString()
  return url.toString()
}

/** The `src` of the signing frame for a signing token (embed it with `allow="publickey-credentials-get"`). */
export const signingFrameUrl = (parameters: SigningFrameParameters & { readonly token: string; readonly mode?: "registered" | "anonymous" }): string =>
  frame(parameters.baseUrl, parameters.clientId, {
    token: parameters.token,
    documentName: parameters.documentName,
    origin: parameters.origin,
    ...(parameters.mode !== undefined ? { mode: parameters.mode } : {}),
  })

/** The `src` of the signing frame that approves a `/v2/sign` request or batch by its id. */
export const approvalFrameUrl = (
  parameters: Omit<SigningFrameParameters, "documentName"> & ({ readonly requestId: string } | { readonly batchId: string }),
): string =>
  frame(parameters.baseUrl, parameters.clientId, {
    ...("requestId" in parameters ? { request: parameters.requestId } : { batch: parameters.batchId }),
    origin: parameters.origin,
  })

/** The messages the signing frame posts to its parent page (check `event.origin` first). */
export type SigningFrameMessage =
  | { readonly type: "SSC_SIGN_COMPLETE"; readonly [field: string]: unknown }
  | { readonly type: "SSC_SIGN_CANCELLED" }
  | { readonly type: "SSC_SIGN_ERROR"; readonly error: string }
