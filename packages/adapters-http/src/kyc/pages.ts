/**
 * Hosted KYC capture pages: the desktop page (`/kyc/capture#token=…`, or `#handoff=…` to wait
 * for a phone) and the phone page of a handoff (`/kyc/handoff/{id}`). Camera through
 * `getUserMedia`; frames go through the liveness session's relay. docs/kyc.md.
 */
import { EngineConfig, handoffContext, INTERFACE_VERSION } from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { scriptResponse } from "../pages/browser-scripts.ts"
import { escapeHtml } from "../pages/pages.ts"

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.3rem;margin:0 0 .6rem}#guide{color:#3b434b}#code{font:600 1.1rem ui-monospace,monospace;letter-spacing:.15em}
.stage{position:relative;background:#0d1117;border-radius:6px;overflow:hidden;aspect-ratio:4/3;max-width:100%}
video{width:100%;height:100%;object-fit:cover;display:block;transform:scaleX(-1)}
.document video{transform:none}
.frame{position:absolute;pointer-events:none;border:3px dashed rgba(255,255,255,.85);box-shadow:0 0 0 100vmax rgba(0,0,0,.35)}
.frame.face{left:30%;right:30%;top:10%;bottom:10%;border-radius:50%}
.frame.document{left:8%;right:8%;top:17%;bottom:17%;border-radius:8px}
button{margin:1rem .5rem 0 0;padding:.6rem 1.2rem;font:inherit;cursor:pointer}button:disabled{cursor:default;opacity:.6}
#status{min-height:1.5em;margin:.8rem 0 0}#verdict{font-size:1.2rem;font-weight:600}
.ok{color:#116329}.err{color:#b42318}.busy{color:#57606a}small{color:#57606a}code{word-break:break-all}
[hidden]{display:none!important}`

const headers = (requestId: string): Record<string, string> => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "permissions-policy": "camera=(self), microphone=()",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  ...baseHeaders(requestId),
})

const capturePage = (
  api: string,
  environment: string,
  mode: "desktop" | "phone",
  requestId: string,
  handoff?: { readonly id: string; readonly code: string },
) =>
  new Response(
    `<!doctype html>
<html lang="en" data-api="${escapeHtml(api)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Verify your identity · Signet</title><style>${STYLE}</style></head>
<body data-mode="${mode}" data-state="loading"${handoff === undefined ? "" : ` data-handoff="${escapeHtml(handoff.id)}"`}><main>
<h1>Verify your identity</h1>
<p id="code"${handoff === undefined ? " hidden" : ""}>${handoff === undefined ? "" : `Code ${escapeHtml(handoff.code)}`}</p>
<p id="guide"></p>
<div id="handoff" hidden><p>Scan this code with your phone's camera, or open the link on your phone (the same code shows there):</p><canvas id="phoneQr" role="img" aria-label="QR code of the link for your phone" width="232" height="232"></canvas><p><code id="phoneUrl"></code></p></div>
<fieldset id="doctype" hidden><legend>Document</legend>
<label><input type="radio" name="doc" value="passport" checked> Passport (photo page)</label>
<label><input type="radio" name="doc" value="id"> ID card (front and back)</label></fieldset>
<div id="stage" class="stage" hidden><video id="video" playsinline muted autoplay></video><div id="frame" class="frame face"></div></div>
<p id="status" role="status" aria-live="polite"></p>
<div><button id="capture" type="button" hidden disabled>Capture</button></div>
<p id="verdict" role="status" aria-live="polite"></p>
</main><p><small>Signet ${escapeHtml(environment)} · interface ${INTERFACE_VERSION} · images go only to Signet, encrypted at rest</small></p>
<script src="${escapeHtml(api)}/kyc/capture.js" defer></script></body></html>`,
    { status: 200, headers: headers(requestId) },
  )

const expiredPage = (requestId: string) =>
  new Response(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Verify your identity · Signet</title><style>${STYLE}</style></head>
<body data-state="error"><h1>Link expired</h1><p class="err">This link has expired or was replaced. Start again on your computer.</p></body></html>`,
    { status: 404, headers: headers(requestId) },
  )

/** `GET /kyc/capture`: the desktop capture page; `#token=<liveness session token>` (or `#handoff=<id>` to wait for the phone), optional `&origin=<RP origin>`. */
export const kycCapturePage = endpoint({
  method: "GET",
  path: "/kyc/capture",
  tag: "Identity verification",
  auth: "none",
  hidden: true,
  summary: "Hosted capture (desktop)",
  response: { mediaType: "text/html" },
  handle: ({ requestId }) => Effect.map(EngineConfig, (s) => capturePage(s.basePath, s.environment, "desktop", requestId)),
})

/** `GET /kyc/handoff/{id}`: the phone page of a handoff (document, then face). */
export const kycHandoffPage = endpoint({
  method: "GET",
  path: "/kyc/handoff/{id}",
  tag: "Identity verification",
  auth: "none",
  hidden: true,
  summary: "Hosted capture (phone handoff)",
  response: { mediaType: "text/html" },
  handle: ({ requestId, params, clientIp }) =>
    Effect.gen(function* () {
      const s = yield* EngineConfig
      const id = params["id"] ?? ""
      return yield* handoffContext(id, clientIp).pipe(
        Effect.map((c) => capturePage(s.basePath, s.environment, "phone", requestId, { id, code: c.code })),
        Effect.catchTag("KycVerificationNotFound", () => Effect.succeed(expiredPage(requestId))),
      )
    }),
})

/** `GET /kyc/capture.js`: the capture pages' script. */
export const kycCaptureScript = endpoint({
  method: "GET",
  path: "/kyc/capture.js",
  tag: "Identity verification",
  auth: "none",
  hidden: true,
  summary: "Hosted capture script",
  response: { mediaType: "text/javascript" },
  handle: ({ requestId }) => scriptResponse("kyc-capture", requestId),
})

/** The hosted capture pages and their script. */
export const kycCapturePages = [kycCapturePage, kycHandoffPage, kycCaptureScript] as const
