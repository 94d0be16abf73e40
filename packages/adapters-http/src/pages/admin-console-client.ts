/**
 * The administrator console's script, served from the engine's origin so the CSP can forbid
 * inline script. The administrator token lives in this tab's sessionStorage only and goes out
 * as a bearer header to `/admin/api/*`; no cookie is set, so there is nothing to forge cross-site.
 */
export const ADMIN_CONSOLE_JS = String.raw`
"use strict";
const api = document.documentElement.dataset.api;
const KEY = "signet-admin-token";
const $ = (id) => document.getElementById(id);
function status(text, ok) {
  const el = $("result");
  el.textContent = text;
  el.className = ok ? "ok" : "err";
}
async function call(path, body) {
  const res = await fetch(api + "/admin/api" + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: "Bearer " + sessionStorage.getItem(KEY), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (res.status === 401) signOut();
  if (!res.ok) throw new Error(data.error || ("HTTP " + res.status));
  return data;
}
function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}
const MOVES = { Approve: ["pending", "rejected", "suspended"], Reject: ["pending"], Suspend: ["approved"] };
function render(rps) {
  const body = $("rps").tBodies[0];
  body.replaceChildren();
  for (const rp of rps) {
    const row = document.createElement("tr");
    row.dataset.clientId = rp.clientId;
    cell(row, rp.name);
    cell(row, rp.clientId, "mono");
    cell(row, rp.status, "status status-" + rp.status);
    cell(row, (rp.plan || "none") + (rp.requestedPlan && rp.requestedPlan !== rp.plan ? " (asked: " + rp.requestedPlan + ")" : ""));
    cell(row, rp.kycVerified ? "verified" : "not verified", "kyc");
    cell(row, rp.usage.signaturesToday + " / " + rp.usage.signaturesPerDay, "usage");
    const actions = cell(row, "");
    for (const [move, from] of Object.entries(MOVES)) {
      if (!from.includes(rp.status)) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = move;
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          const updated = await call("/relying-parties/" + encodeURIComponent(rp.clientId) + "/commands", { _tag: move });
          status(updated.name + " is " + updated.status, true);
        } catch (e) {
          status(e.message, false);
        }
        await load();
      });
      actions.appendChild(b);
    }
    body.appendChild(row);
  }
  $("count").textContent = rps.length + " relying part" + (rps.length === 1 ? "y" : "ies");
}
async function load() {
  try {
    render(await call("/relying-parties"));
    $("login").hidden = true;
    $("console").hidden = false;
  } catch (e) {
    status(e.message, false);
  }
}
function signOut() {
  sessionStorage.removeItem(KEY);
  $("console").hidden = true;
  $("login").hidden = false;
}
$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(KEY, $("token").value.trim());
  $("token").value = "";
  await load();
});
$("refresh").addEventListener("click", load);
$("signout").addEventListener("click", () => { signOut(); status("Signed out", true); });
if (sessionStorage.getItem(KEY)) load();
`
