/**
 * A small relying-party site on its own origin that embeds Signet's signing frame: its backend asks
 * Signet for a signing token with the SSC secret (server to server), its page frames `/ssc/frame`.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { readBody } from "@signet/adapters-http"

/** How the RP demo reaches Signet and which RP it is. */
export interface RpDemoOptions {
  /** Signet's public origin, e.g. `http://localhost:3000` (the frame's origin) */
  readonly signetOrigin: string
  /** where Signet's API is mounted, e.g. `/api` */
  readonly basePath: string
  readonly clientId: string
  /** the RP's SSC secret; stays on this server */
  readonly sscSecret: string
  /** how the backend calls Signet (tests may pass one); the global `fetch` by default */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>
}

/** The demo's document: a short lease, signed as its UTF-8 bytes. */
export const RP_DEMO_DOCUMENT = `RESIDENTIAL LEASE AGREEMENT

Landlord: Northwind Properties Ltd., 1 Harbour Road
Tenant:   the signer of this agreement
Premises: Flat 3, 12 Elm Street

1. Term. Twelve months from 1 July 2026.
2. Rent. 1 250.00 EUR per month, payable on the first day of each month.
3. Deposit. Two months' rent, returned within 30 days of the end of the term.
4. Use. The premises are let as a private dwelling for the tenant's household only.
5. Notice. Either party may end this agreement with three months' written notice.
`

/** The demo document's file name as shown in the signing frame. */
export const RP_DEMO_DOCUMENT_NAME = "lease-flat-3-elm-street.txt"

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const DEMO_JS = String.raw`
"use strict";
(() => {
const root = document.documentElement.dataset;
const signetOrigin = root.signetOrigin;
const form = document.getElementById("sign");
const button = form.querySelector("button");
const requestForm = document.getElementById("request");
const requestButton = requestForm.querySelector("button");
const slot = document.getElementById("frame");
const result = document.getElementById("result");
const show = (text, cls, message) => {
  result.textContent = text;
  result.className = cls;
  if (message !== undefined) result.dataset.result = JSON.stringify(message);
};
let current = null;
window.addEventListener("message", (event) => {
  // Only the signing frame speaks for Signet: check the sender's origin and window.
  if (event.origin !== signetOrigin || current === null || event.source !== current.contentWindow) return;
  const m = event.data;
  if (!m || typeof m.type !== "string") return;
  const messages = JSON.parse(result.dataset.messages || "[]");
  messages.push(m.type);
  result.dataset.messages = JSON.stringify(messages);
  if (m.type === "SSC_SIGN_READY") return;
  if (m.type === "SSC_SIGN_COMPLETE") {
    if (m.kind === "request") show("Signed: request " + m.id + " (" + m.status + ", " + m.loa + ")", "ok", m);
    else show("Signed: signature " + m.signatureId + " (" + m.levelOfAssurance + ", " + m.mode + ")", "ok", m);
    button.disabled = false;
    requestButton.disabled = false;
  } else if (m.type === "SSC_SIGN_CANCELLED") {
    show("The signer cancelled.", "", m);
    current.remove();
    current = null;
    button.disabled = false;
    requestButton.disabled = false;
  } else if (m.type === "SSC_SIGN_ERROR") {
    show("Signing frame reports: " + m.error, "err", m);
    button.disabled = false;
    requestButton.disabled = false;
  }
});
form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  button.disabled = true;
  show("Asking for a signing token…", "", undefined);
  delete result.dataset.result;
  delete result.dataset.messages;
  if (current !== null) { current.remove(); current = null; }
  const f = new FormData(form);
  try {
    const res = await fetch("/token", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: f.get("email") || undefined, loa: f.get("loa") || undefined }) });
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || ("HTTP " + res.status));
    const fragment = new URLSearchParams({ token: data.token, documentName: data.documentName, origin: location.origin });
    const frame = document.createElement("iframe");
    frame.allow = "publickey-credentials-get";
    frame.title = "Signet signing frame";
    frame.src = data.frameUrl + "#" + fragment.toString();
    slot.appendChild(frame);
    current = frame;
    show("Approve the signature in the frame (" + data.loa + ", token valid until " + new Date(data.expiresAt * 1000).toLocaleTimeString() + ").", "", undefined);
  } catch (e) {
    show(String(e && e.message || e), "err", { type: "DEMO_ERROR", error: String(e && e.message || e) });
    button.disabled = false;
  }
});
// Hash signing with the signer's own access token: the backend creates a /v2/sign request, the frame approves it,
// and its end is a sign.complete webhook and an event on /v2/events.
requestForm.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  requestButton.disabled = true;
  show("Creating a signing request…", "", undefined);
  delete result.dataset.result;
  delete result.dataset.messages;
  if (current !== null) { current.remove(); current = null; }
  try {
    const res = await fetch("/request", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ accessToken: new FormData(requestForm).get("accessToken") }) });
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || ("HTTP " + res.status));
    const frame = document.createElement("iframe");
    frame.allow = "publickey-credentials-get";
    frame.title = "Signet signing frame";
    frame.src = data.frameUrl + "#" + new URLSearchParams({ request: data.requestId, origin: location.origin }).toString();
    slot.appendChild(frame);
    current = frame;
    show("Approve signing request " + data.requestId + " in the frame.", "", undefined);
  } catch (e) {
    show(String(e && e.message || e), "err", { type: "DEMO_ERROR", error: String(e && e.message || e) });
    requestButton.disabled = false;
  }
});
})();
`

const page = (signetOrigin: string, documentHash: string) => `<!doctype html>
<html lang="en" data-signet-origin="${escapeHtml(signetOrigin)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign your lease · Northwind Properties (RP demo)</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:1rem;white-space:pre-wrap;font-size:13px}
label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;cursor:pointer}.ok{color:#116329}.err{color:#b42318}
iframe{display:block;width:100%;height:22rem;border:1px solid #d0d7de;border-radius:4px;margin-top:1rem}
code{font-size:12px;word-break:break-all}small{color:#57606a}</style></head>
<body><h1>Northwind Properties</h1>
<p>Please read and sign your lease. <small>(A demo relying party on its own origin, using Signet's signing frame.)</small></p>
<pre id="document">${escapeHtml(RP_DEMO_DOCUMENT)}</pre>
<p><small>${escapeHtml(RP_DEMO_DOCUMENT_NAME)} · SHA-256 <code id="hash">${documentHash}</code> · <a href="document">download</a></small></p>
<form id="sign"><label for="email">Your e-mail (optional: leave empty to approve with any enrolled passkey)</label>
<input id="email" name="email" type="email" autocomplete="email">
<label for="loa">Level of assurance</label><select id="loa" name="loa">
<option value="">Automatic: LOA-4 with an e-mail, LOA-2 without</option><option value="LOA-2">LOA-2</option><option value="LOA-4">LOA-4</option></select>
<button type="submit">Sign</button></form>
<form id="request"><p><small>Or sign as a signing request of your own (<code>POST /v2/sign/single</code>: its end is a
<code>sign.complete</code> webhook and an event on <code>/v2/events</code>), with the access token step 2 showed you:</small></p>
<label for="accessToken">Your access token</label><input id="accessToken" name="accessToken" autocomplete="off">
<button type="submit">Use my token</button></form>
<div id="frame"></div><p id="result" role="status"></p>
<script src="/demo.js" defer></script></body></html>`

/**
 * Builds the RP demo's web handler: `GET /` (the document and the Sign buttons), `GET /demo.js`, `GET /document`,
 * `POST /token` (a signing token) and `POST /request` (a `/v2/sign` request with the signer's own access token).
 */
export const makeRpDemo = (options: RpDemoOptions): ((request: Request) => Promise<Response>) => {
  const documentBytes = new TextEncoder().encode(RP_DEMO_DOCUMENT)
  const documentHash = createHash("sha256").update(documentBytes).digest("hex")
  const signetApi = `${options.signetOrigin}${options.basePath.replace(/\/+$/, "")}`
  const frameUrl = `${signetApi}/ssc/frame?client_id=${encodeURIComponent(options.clientId)}`
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init))
  const common = { "x-content-type-options": "nosniff", "cache-control": "no-store" }
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...common } })

  const token = async (request: Request): Promise<Response> => {
    if (!(request.headers.get("content-type") ?? "").startsWith("application/json")) return json(415, { error: "JSON expected" })
    let body: { email?: unknown; loa?: unknown }
    try {
      body = JSON.parse(new TextDecoder().decode(await Effect.runPromise(readBody(request, 16 * 1024)))) as { email?: unknown; loa?: unknown }
    } catch {
      return json(400, { error: "Invalid JSON" })
    }
    const email = typeof body.email === "string" && body.email.trim() !== "" ? body.email.trim() : undefined
    const loa = body.loa === "LOA-2" || body.loa === "LOA-4" ? body.loa : email === undefined ? "LOA-2" : "LOA-4"
    let answer: Response
    try {
      answer = await doFetch(`${signetApi}/ssc/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          clientId: options.clientId,
          clientSecret: options.sscSecret,
          documentHash,
          loa,
          ...(email !== undefined ? { signerEmail: email } : {}),
        }),
      })
    } catch {
      return json(502, { error: "Signet could not be reached" })
    }
    const issued = (await answer.json().catch(() => ({}))) as Record<string, unknown>
    if (!answer.ok) return json(answer.status, { error: typeof issued.error === "string" ? issued.error : `Signet answered ${answer.status}` })
    return json(200, { ...issued, documentName: RP_DEMO_DOCUMENT_NAME, frameUrl })
  }

  // With the signer's token (as an RP's backend holds it after sign-in): their newest passkey signs the document's hash.
  const signingRequest = async (request: Request): Promise<Response> => {
    if (!(request.headers.get("content-type") ?? "").startsWith("application/json")) return json(415, { error: "JSON expected" })
    let accessToken: unknown
    try {
      accessToken = (JSON.parse(new TextDecoder().decode(await Effect.runPromise(readBody(request, 16 * 1024)))) as { accessToken?: unknown }).accessToken
    } catch {
      return json(400, { error: "Invalid JSON" })
    }
    if (typeof accessToken !== "string" || accessToken.trim() === "") return json(400, { error: "accessToken is required (step 2 shows it)" })
    const authorization = `Bearer ${accessToken.trim()}`
    try {
      const me = await doFetch(`${signetApi}/v2/me`, { method: "GET", headers: { authorization } })
      const user = (await me.json().catch(() => ({}))) as { error?: string; passkeys?: ReadonlyArray<{ id: string; createdAt: number }> }
      if (!me.ok) return json(me.status, { error: user.error ?? `Signet answered ${me.status}` })
      const newest = [...(user.passkeys ?? [])].sort((a, b) => b.createdAt - a.createdAt)[0]
      if (newest === undefined) return json(409, { error: "This account has no passkey" })
      const created = await doFetch(`${signetApi}/v2/sign/single`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ documentHash, credentialId: newest.id, documentName: RP_DEMO_DOCUMENT_NAME }),
      })
      const answer = (await created.json().catch(() => ({}))) as Record<string, unknown>
      if (!created.ok) return json(created.status, { error: typeof answer.error === "string" ? answer.error : `Signet answered ${created.status}` })
      return json(200, { requestId: answer.requestId, frameUrl })
    } catch {
      return json(502, { error: "Signet could not be reached" })
    }
  }

  return async (request) => {
    const url = new URL(request.url)
    const route = `${request.method} ${url.pathname}`
    switch (route) {
      case "GET /":
        return new Response(page(options.signetOrigin, documentHash), {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": `default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; frame-src ${options.signetOrigin}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
            ...common,
          },
        })
      case "GET /demo.js":
        return new Response(DEMO_JS, { headers: { "content-type": "text/javascript; charset=utf-8", ...common } })
      case "GET /document":
        return new Response(documentBytes, {
          headers: { "content-type": "text/plain; charset=utf-8", "content-disposition": `inline; filename="${RP_DEMO_DOCUMENT_NAME}"`, ...common },
        })
      case "POST /token":
        return token(request)
      case "POST /request":
        return signingRequest(request)
      default:
        return ["/", "/demo.js", "/document", "/token", "/request"].includes(url.pathname)
          ? json(405, { error: "Method not allowed" })
          : json(404, { error: "Not found" })
    }
  }
}
