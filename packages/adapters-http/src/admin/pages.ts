/**
 * The back-office console's pages (`/admin`, `/admin/rp`, `/admin/kyc`, `/admin/kyc/review`,
 * `/admin/usage`, `/admin/certificates`, `/admin/audit`): static HTML shells, one script served
 * by the engine (strict CSP, no inline script, nothing from a CDN). Everything they show comes
 * from `/admin/api/*` with the administrator token, which stays in the tab's sessionStorage.
 */
import { EngineConfig, INTERFACE_VERSION } from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { scriptResponse } from "../pages/browser-scripts.ts"
import { escapeHtml } from "../pages/pages.ts"

// Contrast: every text colour here is at least 4.5:1 on white (WCAG AA).
const STYLE = `*{box-sizing:border-box}body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:1rem;color:#1b1f24}
nav ul{display:flex;flex-wrap:wrap;gap:.4rem 1rem;list-style:none;padding:0;margin:.5rem 0 1rem}nav a{color:#0550ae}nav a[aria-current=page]{font-weight:700;color:#1b1f24}
a{color:#0550ae}:focus-visible{outline:3px solid #0550ae;outline-offset:2px}
.table-wrap{overflow-x:auto;max-width:100%}table{border-collapse:collapse;width:100%;margin-top:1rem}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d0d7de;vertical-align:top}
.mono{font:12px ui-monospace,monospace;word-break:break-all}button{margin:0 .3rem .2rem 0;padding:.35rem .8rem;font:inherit;cursor:pointer}
input,select,textarea{padding:.45rem;font:inherit;max-width:100%}input[type=text],input[type=password],textarea{width:28rem}textarea{min-height:4.5rem}
label{display:block;font-weight:600;margin-top:.6rem}fieldset{border:1px solid #d0d7de;margin:1rem 0;padding:.5rem 1rem 1rem}legend{font-weight:700}
.ok{color:#116329}.err{color:#b42318}.status-pending,.status-needs_review{color:#7d4e00}.status-approved,.status-verified,.status-delivered{color:#116329}
.status-suspended,.status-rejected,.status-failed{color:#b42318}small{color:#57606a}[hidden]{display:none!important}
.images{display:flex;flex-wrap:wrap;gap:1rem}.images figure{margin:0}.images img{max-width:320px;width:100%;height:auto;border:1px solid #d0d7de}
.chart img{max-width:100%;height:auto;border:1px solid #d0d7de}.secret{background:#fff8c5;padding:.5rem;border:1px solid #d4a72c}
@media (max-width:600px){body{font-size:14px;padding:.5rem}input[type=text],input[type=password],textarea{width:100%}th,td{padding:.3rem}}`

const PAGES = [
  { path: "/admin", name: "rps", title: "Relying parties" },
  { path: "/admin/kyc", name: "kyc", title: "KYC review queue" },
  { path: "/admin/usage", name: "usage", title: "Usage" },
  { path: "/admin/certificates", name: "certificates", title: "Certificates" },
  { path: "/admin/audit", name: "audit", title: "Audit log" },
] as const

const BODIES: Record<string, string> = {
  rps: `<p><span id="count"></span> · <button id="refresh" type="button">Refresh</button></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Relying parties"><table id="rps"><caption class="sr">Relying parties</caption><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Status</th><th scope="col">Plan</th><th scope="col">Organisation KYC</th><th scope="col">Signatures today</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table></div>`,
  rp: `<h2 id="rp-name">Relying party</h2><p class="mono" id="rp-id"></p>
<dl><dt>Status</dt><dd id="rp-status"></dd><dt>Plan</dt><dd id="rp-plan"></dd><dt>Signatures today</dt><dd id="rp-usage"></dd><dt>Organisation KYC</dt><dd id="rp-kyc-verified"></dd></dl>
<p id="rp-moves"></p>
<form id="settings"><fieldset><legend>Settings</legend>
<label for="plan">Plan</label><select id="plan"><option value="">none</option><option>starter</option><option>business</option><option>enterprise</option></select>
<label for="max-loa">Maximum LOA</label><select id="max-loa"><option>LOA-2</option><option>LOA-4</option></select>
<label for="origins">Signing origins (one per line)</label><textarea id="origins"></textarea>
<label for="redirects">Redirect URIs (one per line)</label><textarea id="redirects"></textarea>
<label for="post-logout">Post-logout redirect URIs (one per line)</label><textarea id="post-logout"></textarea>
<label for="contact">Contact account (user id; empty for none)</label><input id="contact" type="text" autocomplete="off">
<p><button type="submit">Save settings</button></p></fieldset></form>
<form id="kyc-switch"><fieldset><legend>Identity verification (KYC)</legend>
<label><input id="kyc-enabled" type="checkbox"> KYC enabled</label>
<label for="kyc-scope">Identity scope</label><select id="kyc-scope"><option value="rp">this RP only</option><option value="shared">shared across RPs</option></select>
<p><button type="submit">Save KYC</button></p></fieldset></form>
<fieldset><legend>Secrets</legend><p><button type="button" id="rotate-client">Rotate client secret</button><button type="button" id="rotate-ssc">Rotate SSC secret</button></p>
<p id="new-secret" class="secret" hidden><span id="new-secret-label"></span> (shown once): <code id="new-secret-value" class="mono"></code></p></fieldset>
<h3>Organisation checks</h3><div class="table-wrap" tabindex="0" role="region" aria-label="Organisation checks"><table id="checks"><thead><tr><th scope="col">Outcome</th><th scope="col">Legal name</th><th scope="col">Documents</th><th scope="col">Checked by</th><th scope="col">When</th></tr></thead><tbody></tbody></table></div>
<h3>Webhooks</h3><ul id="subscriptions"></ul>
<div class="table-wrap" tabindex="0" role="region" aria-label="Webhook deliveries"><table id="deliveries"><thead><tr><th scope="col">Id</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table></div>
<p><a id="usage-link" href="#">Usage charts</a> · <a id="kyc-link" href="#">KYC queue of this RP</a></p>`,
  kyc: `<form id="filter"><label for="status">Status</label><select id="status"><option value="needs_review">needs_review</option><option value="all">every status</option><option>pending</option><option>document_verified</option><option>verified</option><option>failed</option></select>
<label for="client-filter">Client id (empty: every RP)</label><input id="client-filter" type="text" autocomplete="off"><p><button type="submit">Show</button></p></form>
<div class="table-wrap" tabindex="0" role="region" aria-label="Verifications"><table id="queue"><thead><tr><th scope="col">Customer</th><th scope="col">RP</th><th scope="col">Status</th><th scope="col">Face match</th><th scope="col">Liveness</th><th scope="col">Reasons</th><th scope="col">Updated</th></tr></thead><tbody></tbody></table></div>`,
  review: `<h2>Verification <span class="mono" id="v-id"></span></h2>
<dl><dt>Status</dt><dd id="v-status"></dd><dt>Reasons</dt><dd id="v-reasons"></dd>
<dt>Face match</dt><dd id="v-face"></dd><dt>Liveness</dt><dd id="v-liveness"></dd></dl>
<h3>Document and selfie</h3><div class="images" id="images"></div>
<h3>Extracted fields and the customer's record</h3><div class="table-wrap" tabindex="0" role="region" aria-label="Extracted fields and record"><table id="fields"><thead><tr><th scope="col">Field</th><th scope="col">Document (MRZ)</th><th scope="col">Customer's record</th></tr></thead><tbody></tbody></table></div>
<form id="decision"><fieldset><legend>Decision</legend><label for="reason">Reason</label><textarea id="reason" required></textarea>
<p><button type="submit" value="approve" id="approve">Approve</button><button type="submit" value="reject" id="reject">Reject</button><button type="button" id="erase">Erase customer</button></p></fieldset></form>
<h3>History</h3><ol id="history"></ol>`,
  usage: `<form id="usage-form"><label for="usage-client">Client id</label><input id="usage-client" type="text" autocomplete="off">
<label for="usage-days">Days</label><select id="usage-days"><option>7</option><option selected>30</option><option>90</option></select><p><button type="submit">Show</button></p></form>
<div id="charts"></div>
<div class="table-wrap" tabindex="0" role="region" aria-label="Usage per day"><table id="usage-table"><caption>Signatures and quota refusals per day (UTC)</caption><thead><tr><th scope="col">Day</th><th scope="col">Signatures</th><th scope="col">Quota refusals</th></tr></thead><tbody></tbody></table></div>
<h3>KYC outcomes</h3><div class="table-wrap" tabindex="0" role="region" aria-label="KYC outcomes"><table id="kyc-outcomes"><thead><tr><th scope="col">Status or reason</th><th scope="col">Verifications</th></tr></thead><tbody></tbody></table></div>`,
  certificates: `<form id="cert-search"><label for="serial">Serial (hex)</label><input id="serial" type="text" autocomplete="off">
<label for="holder">Holder (user id)</label><input id="holder" type="text" autocomplete="off"><p><button type="submit">Search</button></p></form>
<div class="table-wrap" tabindex="0" role="region" aria-label="Certificates"><table id="certs"><thead><tr><th scope="col">Serial</th><th scope="col">Subject</th><th scope="col">Holder</th><th scope="col">Status</th><th scope="col">Valid until</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table></div>`,
  audit: `<form id="audit-filter"><label for="f-actor">Actor (user id or client id; admin for the administrator)</label><input id="f-actor" type="text" autocomplete="off">
<label for="f-action">Action contains</label><input id="f-action" type="text" autocomplete="off"><label for="f-subject">Subject or RP</label><input id="f-subject" type="text" autocomplete="off">
<label for="f-from">From (UTC)</label><input id="f-from" type="datetime-local"><label for="f-to">To (UTC)</label><input id="f-to" type="datetime-local">
<p><button type="submit">Filter</button><button type="button" id="export">Export CSV</button></p></form>
<div class="table-wrap" tabindex="0" role="region" aria-label="Audit events"><table id="audit"><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Actor</th><th scope="col">Detail</th></tr></thead><tbody></tbody></table></div>`,
}

const html = (basePath: string, environment: string, name: string, title: string, current: string) => `<!doctype html>
<html lang="en" data-api="${escapeHtml(basePath)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Signet administration</title><style>${STYLE}.sr{position:absolute;left:-9999px}</style></head>
<body data-page="${name}"><header><p><strong>Signet administration</strong> <small>(${escapeHtml(environment)})</small></p>
<nav aria-label="Console"><ul>${PAGES.map((p) => `<li><a href="${escapeHtml(basePath + p.path)}"${p.path === current ? ' aria-current="page"' : ""}>${p.title}</a></li>`).join("")}</ul></nav></header>
<main><h1>${escapeHtml(title)}</h1>
<form id="login"><label for="token">Administrator token</label><input id="token" type="password" autocomplete="off" required>
<label for="reviewer-name">Your name (recorded with your decisions)</label><input id="reviewer-name" type="text" autocomplete="name">
<p><button type="submit">Sign in</button></p></form>
<section id="console" hidden aria-label="${escapeHtml(title)}"><p><button id="signout" type="button">Sign out</button></p>${BODIES[name]}</section>
<p id="result" role="status" aria-live="polite"></p></main><footer><p><small>Signet · interface ${INTERFACE_VERSION}</small></p></footer>
<script src="${escapeHtml(basePath)}/admin/console.js" defer></script></body></html>`

const page = (path: string, name: string, title: string, current = path) =>
  endpoint({
    method: "GET",
    path,
    tag: "Hosted pages",
    auth: "none",
    hidden: true,
    summary: `Administrator console: ${title}`,
    response: { mediaType: "text/html" },
    handle: ({ requestId }) =>
      Effect.map(
        EngineConfig,
        (s) =>
          new Response(html(s.basePath, s.environment, name, title, current), {
            status: 200,
            headers: {
              "content-type": "text/html; charset=utf-8",
              // images are decrypted KYC photos and server-drawn charts, fetched with the token and shown as blob: URLs
              "content-security-policy":
                "default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
              "x-content-type-options": "nosniff",
              "referrer-policy": "no-referrer",
              "cache-control": "no-store",
              ...baseHeaders(requestId),
            },
          }),
      ),
  })

/** `GET /admin`: the console's RP list; everything it shows comes from `/admin/api/*` with the administrator token. */
export const adminConsolePage = page("/admin", "rps", "Relying parties")

/** `GET /admin/console.js`: the console's script. */
export const adminConsoleScript = endpoint({
  method: "GET",
  path: "/admin/console.js",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Administrator console script",
  response: { mediaType: "text/javascript" },
  handle: ({ requestId }) => scriptResponse("admin-console", requestId, "no-cache"),
})

/** Every console page and the script. */
export const adminConsolePages = [
  adminConsolePage,
  page("/admin/rp", "rp", "Relying party", "/admin"),
  page("/admin/kyc", "kyc", "KYC review queue"),
  page("/admin/kyc/review", "review", "KYC review", "/admin/kyc"),
  page("/admin/usage", "usage", "Usage"),
  page("/admin/certificates", "certificates", "Certificates"),
  page("/admin/audit", "audit", "Audit log"),
  adminConsoleScript,
] as const
