/** PAdES PDF signing over HTTP: upload a PDF, approve with the passkey as for hash signing, download the signed PDF. */
import {
  InvalidRequest,
  PDF_UPLOAD_LIMIT,
  PdfDocumentNotFound,
  preparePdfSigning,
  signedPdf,
  SigningRequestId,
  SignPdfRequest,
  SignPdfResponse,
} from "@signet/core"
import { Effect } from "effect"
import { decodeBase64Upload } from "../http/base64.ts"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"

/** Body limit: the base64 of a PDF at the upload limit, plus room for a signature image and the other fields. */
export const PDF_BODY_LIMIT = Math.ceil(PDF_UPLOAD_LIMIT / 3) * 4 + 1024 * 1024
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const base64Field = (field: string, value: string) => {
  const bytes = decodeBase64Upload(value)
  return bytes === undefined || bytes.length === 0 ? Effect.fail(new InvalidRequest({ detail: `${field} must be base64` })) : Effect.succeed(bytes)
}

/** `POST /v2/sign/pdf`. */
export const signPdfEndpoint = endpoint({
  method: "POST",
  path: "/v2/sign/pdf",
  tag: "PDF signing",
  auth: "bearer",
  maxBodyBytes: PDF_BODY_LIMIT,
  summary: "Prepare a PAdES signature of a PDF (up to 10 MiB) and open the signing request the user approves with a passkey",
  body: SignPdfRequest,
  response: SignPdfResponse,
  errors: [
    {
      status: 400,
      description:
        "`documentHash and credentialId required` (no credentialId), `pdf must be base64`, a bad `visible` placement, `level must be one of …`, `certify.permissions must be 1, 2 or 3`",
    },
    {
      status: 409,
      description:
        "`Signature not permitted: <why>`: the document is certified with no changes allowed (DocMDP P=1), a field lock (FieldMDP) forbids it, the field is signed, or a certification of a document already signed",
    },
    { status: 403, description: "as `POST /v2/sign/single`" },
    { status: 404, description: "`No signing credential found for user`" },
    { status: 413, description: "`PDF too large; the limit is 10485760 bytes (…)`, or the body above its limit" },
    {
      status: 422,
      description:
        "`Not a PDF that can be signed: <why>`, `PDF exceeds a processing limit: <which>` (docs/security/pdf.md), `Signature image is not a usable PNG: <why>`, `The PDF has no signature field named <name>`",
    },
    { status: 429, description: "as `POST /v2/sign/single`" },
  ],
  handle: ({ body, user }) =>
    Effect.gen(function* () {
      const pdf = yield* base64Field("pdf", body.pdf)
      const image = body.visible?.image === undefined ? undefined : yield* base64Field("visible.image", body.visible.image)
      return yield* preparePdfSigning(user!, {
        pdf,
        credentialId: body.credentialId,
        documentName: body.documentName,
        loa: body.loa,
        callbackUrl: body.callbackUrl,
        rpOrigin: body.rpOrigin,
        reason: body.reason,
        location: body.location,
        level: body.level,
        certify: body.certify,
        field: body.field,
        visible: body.visible === undefined ? undefined : { page: body.visible.page, rect: body.visible.rect, image },
      })
    }),
})

/** `GET /v2/sign/pdf/{requestId}/document`. */
export const signedPdfEndpoint = endpoint({
  method: "GET",
  path: "/v2/sign/pdf/{requestId}/document",
  tag: "PDF signing",
  auth: "bearer",
  params: { requestId: SigningRequestId },
  summary: "The signed PDF (application/pdf) once the signer approved; for the RP that uploaded it, for a day",
  response: { mediaType: "application/pdf" },
  errors: [
    { status: 404, description: "`PDF signing request not found`" },
    { status: 409, description: "`PDF not signed yet. Status: <status>`" },
    { status: 422, description: "`PDF exceeds a processing limit: <which>` (PAdES-LT: the DSS update past the PDF worker's deadline or heap)" },
  ],
  handle: ({ params, user, requestId }) =>
    Effect.gen(function* () {
      const id = params["requestId"]!
      if (!UUID.test(id)) return yield* new PdfDocumentNotFound()
      const pdf = yield* signedPdf(user!, id)
      return new Response(new Uint8Array(pdf), {
        headers: {
          "content-type": "application/pdf",
          "content-disposition": `attachment; filename="signed-${id}.pdf"`,
          "cache-control": "no-store",
          ...baseHeaders(requestId),
        },
      })
    }),
})

/** PDF signing endpoints in document order. */
export const padesEndpoints = [signPdfEndpoint, signedPdfEndpoint] as const
