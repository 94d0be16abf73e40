/** The administrator console (`/admin`): review, approve, reject and suspend RPs and see their usage today. */
import { EngineConfig, INTERFACE_VERSION } from "@signet/core"
import { Effect } from "effect"
import { endpoint } from "../http/endpoint.ts"
import { baseHeaders } from "../http/respond.ts"
import { scriptResponse } from "../pages/browser-scripts.ts"
import { escapeHtml } from "../pages/pages.ts"

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin-top:1rem}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d0d7de;vertical-align:top}
.mono{font:12px ui-monospace,monospace}button{margin:0 .3rem .2rem 0;padding:.3rem .8rem;font:inherit;cursor:pointer}
input{padding:.5rem;font:inherit;width:24rem}.ok{color:#116329}.err{color:#b42318}.status-pending{color:#9a6700}
.status-approved{color:#116329}.status-suspended,.status-rejected{color:#b42318}small{color:#57606a}[hidden]{display:none!important}`

/** `GET /admin`: the console page; everything it shows comes from `/admin/api/*` with the administrator token. */
export const adminConsolePage = endpoint({
  method: "GET",
  path: "/admin",
  tag: "Hosted pages",
  auth: "none",
  hidden: true,
  summary: "Administrator console",
  response: { mediaType: "text/html" },
  handle: ({ requestId }) =>
    Effect.map(
      EngineConfig,
      (s) =>
        new Response(
          `<!doctype html>
<html lang="en" data-api="${escapeHtml(s.basePath)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Administration · Signet</title><style>${STYLE}</style></head>
<body><h1>Signet administration <small>(${escapeHtml(s.environment)})</small></h1>
<form id="login"><label for="token">Administrator token</label><br><input id="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form>
<section id="console" hidden><p><span id="count"></span> · <button id="refresh" type="button">Refresh</button><button id="signout" type="button">Sign out</button></p>
<table id="rps"><thead><tr><th>Name</th><th>Client id</th><th>Status</th><th>Plan</th><th>Organisation KYC</th><th>Signatures today</th><th>Actions</th></tr></thead><tbody></tbody></table></section>
<p id="result" role="status" aria-live="polite"></p><p><small>Signet · interface ${INTERFACE_VERSION}</small></p>
<script src="${escapeHtml(s.basePath)}/admin/console.js" defer></script></body></html>`,
          {
            status: 200,
            headers: {
              "content-type": "text/html; charset=utf-8",
              "content-security-policy":
                "default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
              "x-content-type-options": "nosniff",
              "referrer-policy": "no-referrer",
              "cache-control": "no-store",
              ...baseHeaders(requestId),
            },
          },
        ),
    ),
})

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

/** The console's page and script. */
export const adminConsolePages = [adminConsolePage, adminConsoleScript] as const
