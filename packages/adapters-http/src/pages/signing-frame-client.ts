/** The signing frame's browser script, served from the engine's own origin so the frame's CSP can forbid inline script. */
export const SIGNING_FRAME_CLIENT_JS = String.raw`
"use strict";
(() => {
const api = document.documentElement.dataset.api;
const b64u = {
  toBytes: (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0)),
  from: (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
};
const $ = (id) => document.getElementById(id);
const frameClientId = document.documentElement.dataset.clientId || "";
const approveButton = $("approve"), cancelButton = $("cancel"), retryButton = $("retry"), statusLine = $("status");

// Parameters come in the fragment only: browsers never send it to a server, so the token stays out of logs.
const params = new URLSearchParams(location.hash.slice(1));
const token = params.get("token") || "";
// A /v2/sign request or batch opened by id (the spec: the request id is opened in the frame for approval).
const pendingId = params.get("request") || params.get("batch") || "";
const pendingKind = params.get("request") ? "request" : params.get("batch") ? "batch" : null;
const documentName = params.get("documentName") || "";
const requestedMode = params.get("mode");

// The parent's origin: every message goes to exactly this origin, never to "*".
let parentOrigin = null;
try {
  const o = params.get("origin");
  if (o && new URL(o).origin === o) parentOrigin = o;
} catch (e) { parentOrigin = null; }
const post = (message) => { if (parentOrigin !== null && window.parent !== window) window.parent.postMessage(message, parentOrigin); };

function claimsOf(jwt) {
  const parts = jwt.split(".");
  if (parts.length !== 3) return null;
  try {
    const claims = JSON.parse(new TextDecoder().decode(b64u.toBytes(parts[1])));
    return claims !== null && typeof claims === "object" ? claims : null;
  } catch (e) { return null; }
}

function setState(state, text, cls) {
  document.body.dataset.state = state;
  statusLine.textContent = text || "";
  statusLine.className = cls || "";
}

let finished = false;
function fail(message, retryable) {
  setState("error", message, "err");
  approveButton.disabled = true;
  approveButton.hidden = true;
  retryButton.hidden = !retryable;
  retryButton.disabled = false;
  cancelButton.disabled = false;
  post({ type: "SSC_SIGN_ERROR", error: message });
}

async function call(path, body, absolute) {
  let res;
  try {
    res = await fetch((absolute ? "" : api) + path, body === undefined
      ? { method: "GET", credentials: "omit" }
      : { method: "POST", headers: { "content-type": "application/json" }, credentials: "omit", body: JSON.stringify(body) });
  } catch (e) {
    const err = new Error("Signet could not be reached");
    err.retryable = true;
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && (data.error || data.error_description)) || ("HTTP " + res.status));
    err.status = res.status;
    throw err;
  }
  return data;
}

function assertionJSON(c) {
  return { id: c.id, rawId: b64u.from(c.rawId), type: c.type, clientExtensionResults: {},
    response: { clientDataJSON: b64u.from(c.response.clientDataJSON), authenticatorData: b64u.from(c.response.authenticatorData),
      signature: b64u.from(c.response.signature), userHandle: c.response.userHandle ? b64u.from(c.response.userHandle) : undefined } };
}

const claims = claimsOf(token);
const documentHash = claims && typeof claims.document_hash === "string" ? claims.document_hash.toLowerCase() : "";
const mode = requestedMode === "registered" || requestedMode === "anonymous"
  ? requestedMode
  : (claims && typeof claims.email === "string" && claims.email !== "" ? "registered" : "anonymous");

if (pendingKind === null) {
  $("documentName").textContent = documentName || "(unnamed document)";
  $("documentHash").textContent = documentHash || "(unknown)";
  $("loa").textContent = claims && typeof claims.loa === "string" ? claims.loa : "(unknown)";
  $("signer").textContent = claims === null ? "(unknown)"
    : mode === "registered" && typeof claims.email === "string" ? claims.email : "Any passkey enrolled with Signet";
}

// The pending request or batch, as GET /v2/sign/requests/{id} or /v2/sign/batch/{id} shows it.
let pending = null;
function showPending(view) {
  pending = view;
  // the RP that created the request, as the engine records it (never the embedding page's claim)
  if (view.rpName) $("rp").textContent = view.rpName;
  const docs = view.documents;
  $("documentName").textContent = view.kind === "batch" ? docs.length + " documents" : (docs[0].name || "(unnamed document)");
  $("documentHash").textContent = view.kind === "batch" ? "listed below" : docs[0].hash;
  $("loa").textContent = view.loa;
  $("signer").textContent = "Your passkey";
  if (view.kind === "batch") {
    const list = $("documents");
    for (const d of docs) {
      const item = document.createElement("li");
      const name = document.createElement("strong");
      name.textContent = d.id;
      const hash = document.createElement("div");
      hash.className = "hash";
      hash.textContent = d.hash;
      item.append(name, hash);
      list.append(item);
    }
    list.hidden = false;
  }
}

async function approvePending() {
  const credential = await navigator.credentials.get({ publicKey: {
    challenge: b64u.toBytes(pending.challenge), rpId: pending.rpId,
    allowCredentials: [{ id: b64u.toBytes(pending.credentialId), type: "public-key" }], userVerification: "required",
  } });
  if (!credential) throw new Error("No passkey was chosen");
  setState("approving", "Signing…", "busy");
  const assertion = assertionJSON(credential);
  // The /v2/sign completion calls take the assertion without userHandle.
  delete assertion.response.userHandle;
  const done = await call(pending.authUrl, { assertion }, true);
  return { type: "SSC_SIGN_COMPLETE", kind: pending.kind, id: pending.id, ...done };
}

async function approve() {
  if (finished) return;
  approveButton.disabled = true;
  cancelButton.disabled = true;
  retryButton.hidden = true;
  approveButton.hidden = false;
  setState("approving", "Waiting for your passkey…", "busy");
  let stage = "challenge";
  try {
    if (pending !== null) {
      stage = "passkey";
      const message = await approvePending();
      finished = true;
      setState("done", pending.kind === "batch" ? "Signed · " + message.status : "Signed", "ok");
      approveButton.hidden = true;
      cancelButton.hidden = true;
      post(message);
      return;
    }
    const challenge = await call("/ssc/challenge", { documentHash, documentName, rpOrigin: parentOrigin, mode, token });
    stage = "passkey";
    const credential = await navigator.credentials.get({ publicKey: {
      challenge: b64u.toBytes(challenge.challenge),
      rpId: challenge.rpId,
      allowCredentials: challenge.credentialID ? [{ id: b64u.toBytes(challenge.credentialID), type: "public-key" }] : [],
      userVerification: "required",
    } });
    if (!credential) throw new Error("No passkey was chosen");
    stage = "finalize";
    setState("approving", "Signing…", "busy");
    const signed = await call("/ssc/finalize", { operationId: challenge.operationId, documentHash, assertion: assertionJSON(credential) });
    finished = true;
    setState("done", "Signed · signature " + signed.signatureId, "ok");
    approveButton.hidden = true;
    cancelButton.hidden = true;
    post({
      type: "SSC_SIGN_COMPLETE", signatureId: signed.signatureId, signatureBase64: signed.signatureBase64, documentHash: signed.documentHash,
      credentialId: signed.credentialId, timestamp: signed.timestamp, mode: signed.mode, levelOfAssurance: signed.levelOfAssurance,
      userVerified: signed.userVerified,
    });
  } catch (e) {
    const name = e && e.name;
    if (stage === "passkey" && (name === "NotAllowedError" || name === "AbortError")) {
      fail("The passkey was not used: the request was refused or timed out.", true);
    } else if (stage === "passkey" && name === "SecurityError") {
      fail("The browser refused the passkey request for this page (" + (e.message || name) + ").", false);
    } else {
      const status = e && typeof e.status === "number" ? e.status : 0;
      // A refused challenge (bad or expired token, unauthorised origin) cannot succeed on a retry; the rest can.
      const retryable = Boolean(e && e.retryable) || status === 0 || status === 429 || status >= 500 || stage !== "challenge";
      fail(String((e && e.message) || e), retryable);
    }
  }
}

function cancel() {
  if (finished) return;
  finished = true;
  setState("cancelled", "Cancelled. Nothing was signed.", "");
  approveButton.hidden = true;
  retryButton.hidden = true;
  cancelButton.hidden = true;
  post({ type: "SSC_SIGN_CANCELLED" });
}

approveButton.addEventListener("click", () => void approve());
retryButton.addEventListener("click", () => void approve());
cancelButton.addEventListener("click", cancel);

post({ type: "SSC_SIGN_READY" });
let problem = null;
if (parentOrigin === null) problem = "This signing frame was opened without a valid parent origin.";
else if (window.parent === window) problem = "This signing frame must be embedded in the requesting site's page.";
else if (location.ancestorOrigins && location.ancestorOrigins.length > 0 && location.ancestorOrigins[0] !== "null" && location.ancestorOrigins[0] !== parentOrigin) {
  problem = "The embedding page is not " + parentOrigin + ".";
}
else if (pendingKind !== null && !/^[0-9a-f-]{36}$/.test(pendingId)) problem = "The signing request id is invalid.";
else if (pendingKind === null && !token) problem = "No signing token was given.";
else if (pendingKind === null && (claims === null || !/^[0-9a-f]{64}$/.test(documentHash))) problem = "The signing token is invalid.";
else if (pendingKind === null && typeof claims.exp === "number" && claims.exp * 1000 < Date.now() - 60000) problem = "The signing token has expired.";
else if (!window.PublicKeyCredential) problem = "This browser does not support passkeys.";
const ready = () => {
  approveButton.disabled = false;
  cancelButton.disabled = false;
  setState("ready", "", "");
};
if (problem !== null) {
  fail(problem, false);
} else if (pendingKind !== null) {
  call((pendingKind === "batch" ? "/v2/sign/batch/" : "/v2/sign/requests/") + pendingId)
    .then((view) => {
      // A request made by another RP than the one this frame was opened for is shown for what it is and not approved here.
      if (view.clientId && view.clientId !== frameClientId) {
        showPending(view);
        return fail("This signing request was made by " + view.rpName + ", not by the site that opened this frame.", false);
      }
      showPending(view);
      ready();
    })
    .catch((e) => fail(String((e && e.message) || e), false));
} else {
  ready();
}
})();
`
