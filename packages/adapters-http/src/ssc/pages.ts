/** The embeddable signing frame (`/ssc/frame`): a signer approves a signing token's document, or a `/v2/sign` request or batch, with a passkey. */
import { Batches, EngineConfig, getRelyingParty, INTERFACE_VERSION, SigningRequests } from "@signet/core"
import { Effect, Option } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { scriptResponse } from "../pages/browser-scripts.ts"
import { escapeHtml } from "../pages/pages.ts"

/** Only plain `scheme://host[:port]` values go into the CSP header; anything else could smuggle directives. */
const SAFE_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/** The `frame-ancestors` source list for these signing origins; `'none'` when there is none. */
export const frameAncestors = (origins: ReadonlyArray<string>): string => {
  const safe = [...new Set(origins.filter((o) => SAFE_ORIGIN.test(o)))]
  return safe.length === 0 ? "'none'" : safe.join(" ")
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:1rem 1.2rem;color:#1b1f24;background:#fff}
h1{font-size:1.15rem;margin:0 0 .6rem}dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:.25rem .8rem}
dt{color:#57606a}dd{margin:0;min-width:0}.hash{font:12px/1.4 ui-monospace,monospace;word-break:break-all}
button{margin:1rem .5rem 0 0;padding:.6rem 1.2rem;font:inherit;cursor:pointer}button:disabled{cursor:default;opacity:.6}
button.secondary{background:none;border:1px solid #d0d7de;border-radius:3px}
#status{min-height:1.5em;margin:.8rem 0 0}.ok{color:#116329}.err{color:#b42318}.busy{color:#57606a}small{color:#57606a}
#documents{margin:.6rem 0 0;padding-left:1.4rem}#documents li{margin:.2rem 0}
[hidden]{display:none!important}`

const headers = (requestId: string, ancestors: string): Record<string, string> => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; frame-ancestors ${ancestors}; base-uri 'none'; form-action 'none'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  ...baseHeaders(requestId),
})

const errorPage = (requestId: string, message: string) =>
  new Response(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing frame · Signet</title><style>${STYLE}</style></head>
<body data-state="error"><h1>Signing unavailable</h1><p class="err">${escapeHtml(message)}</p></body></html>`,
    {
      status: 404,
      headers: headers(requestId, "'none'"),
    },
  )

const framePage = (api: string, environment: string, rp: { readonly name: string; readonly clientId: string }, ancestors: string, requestId: string) =>
  new Response(
    `<!doctype html>
<html lang="en" data-api="${escapeHtml(api)}" data-client-id="${escapeHtml(rp.clientId)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Approve signature · Signet</title><style>${STYLE}</style></head>
<body data-state="loading"><main>
<h1>Approve a signature</h1>
<dl>
<dt>Requested by</dt><dd id="rp">${escapeHtml(rp.name)}</dd>
<dt>Document</dt><dd id="documentName">…</dd>
<dt>SHA-256</dt><dd id="documentHash" class="hash">…</dd>
<dt>Assurance</dt><dd id="loa">…</dd>
<dt>Signer</dt><dd id="signer">…</dd>
</dl>
<ol id="documents" hidden></ol>
<p id="status" role="status" aria-live="polite"></p>
<div><button id="approve" type="button" disabled>Approve with passkey</button><button id="retry" type="button" hidden>Try again</button><button id="cancel" type="button" class="secondary" disabled>Cancel</button></div>
</main><p><small>Signet ${escapeHtml(environment)} · interface ${INTERFACE_VERSION}</small></p>
<script src="${escapeHtml(api)}/ssc/frame.js" defer></script></body></html>`,
    {
      status: 200,
      headers: headers(requestId, ancestors),
    },
  )

/** The client id of the RP that created a pending `/v2/sign` request or batch; undefined when there is none. */
const pendingOwner = (kind: "request" | "batch", id: string): Effect.Effect<string | undefined, never, SigningRequests | Batches> => {
  const owner = (found: Option.Option<{ readonly status: string; readonly clientId: string }>) =>
    Option.isSome(found) && found.value.status === "pending_auth" ? found.value.clientId : undefined
  return kind === "request"
    ? Effect.map(
        Effect.flatMap(SigningRequests, (r) => r.findById(id)),
        owner,
      )
    : Effect.map(
        Effect.flatMap(Batches, (b) => b.findById(id)),
        owner,
      )
}

/**
 * `GET /ssc/frame?client_id=`: the signing frame; only the RP's signing origins may frame it.
 * For a pending request or batch named in the query (`request=` / `batch=`) the RP is the one that
 * created it, whatever `client_id` says. Named in the fragment (which the server never sees), the
 * frame's script shows the request's own RP and refuses one made by another RP than `client_id`'s.
 */
export const signingFramePage = endpoint({
  method: "GET",
  path: "/ssc/frame",
  tag: "Signing token flow",
  auth: "none",
  hidden: true,
  summary: "Signing frame",
  response: { mediaType: "text/html" },
  handle: ({ requestId, query }) =>
    Effect.gen(function* () {
      const settings = yield* EngineConfig
      const pending = query.get("request")
        ? { kind: "request" as const, id: query.get("request")! }
        : query.get("batch")
          ? { kind: "batch" as const, id: query.get("batch")! }
          : undefined
      const owner = pending === undefined ? undefined : yield* pendingOwner(pending.kind, pending.id)
      if (pending !== undefined && owner === undefined) return errorPage(requestId, "Signing request not found")
      const clientId = owner ?? query.get("client_id") ?? ""
      const rp =
        clientId === ""
          ? Option.none()
          : yield* getRelyingParty(clientId).pipe(
              Effect.map(Option.some),
              Effect.catchTag("ResourceNotFound", () => Effect.succeedNone),
            )
      if (Option.isNone(rp)) return errorPage(requestId, clientId === "" ? "client_id is required" : "Unknown RP client_id")
      return framePage(settings.basePath, settings.environment, rp.value, frameAncestors(rp.value.signingOrigins), requestId)
    }),
})

/** `GET /ssc/frame.js`: the signing frame's script. */
export const signingFrameScript = endpoint({
  method: "GET",
  path: "/ssc/frame.js",
  tag: "Signing token flow",
  auth: "none",
  hidden: true,
  summary: "Signing frame script",
  response: { mediaType: "text/javascript" },
  handle: ({ requestId }) => scriptResponse("signing-frame", requestId),
})

/** The signing frame and its script. */
export const signingFramePages = [signingFramePage, signingFrameScript] as const
