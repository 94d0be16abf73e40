/** The browser script of the hosted pages, served from the engine's own origin so the CSP can forbid inline script. */
export const WEBAUTHN_CLIENT_JS = String.raw`
"use strict";
const api = document.documentElement.dataset.api;
const b64u = {
  toBytes: (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0)),
  from: (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
};
let csrf;
async function call(path, body, token) {
  if (!csrf) csrf = (await (await fetch(api + "/session", { credentials: "same-origin" })).json()).csrfToken;
  const headers = { "content-type": "application/json", "x-csrf-token": csrf };
  if (token) headers.authorization = "Bearer " + token;
  const res = await fetch(api + path, { method: body === undefined ? "GET" : "POST", headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || data.error_description || ("HTTP " + res.status));
  return data;
}
function creationOptions(o) {
  return { ...o, challenge: b64u.toBytes(o.challenge), user: { ...o.user, id: b64u.toBytes(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64u.toBytes(c.id) })) };
}
function requestOptions(o) {
  return { ...o, challenge: b64u.toBytes(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64u.toBytes(c.id) })) };
}
function registrationJSON(c) {
  return { id: c.id, rawId: b64u.from(c.rawId), type: c.type, authenticatorAttachment: c.authenticatorAttachment, clientExtensionResults: {},
    response: { clientDataJSON: b64u.from(c.response.clientDataJSON), attestationObject: b64u.from(c.response.attestationObject),
      transports: c.response.getTransports ? c.response.getTransports() : [] } };
}
function assertionJSON(c) {
  return { id: c.id, rawId: b64u.from(c.rawId), type: c.type, clientExtensionResults: {},
    response: { clientDataJSON: b64u.from(c.response.clientDataJSON), authenticatorData: b64u.from(c.response.authenticatorData),
      signature: b64u.from(c.response.signature), userHandle: c.response.userHandle ? b64u.from(c.response.userHandle) : undefined } };
}
const out = (text, ok) => { const el = document.getElementById("result"); el.textContent = text; el.className = ok ? "ok" : "err"; };
const form = document.querySelector("form");
// The consent page: the answer goes to /authorize/consent, which says where to go next (the RP, with a code or an error).
if (form && form.id === "consent") form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const decision = ev.submitter && ev.submitter.value === "deny" ? "deny" : "allow";
    const next = await call("/authorize/consent", { request: new FormData(form).get("request"), decision });
    location.assign(next.redirectTo);
  } catch (e) { out(String(e && e.message || e), false); }
});
// The logout confirmation (a logout request without an ID token of this user): the answer goes to /logout/confirm.
if (form && form.id === "logout") form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const decision = ev.submitter && ev.submitter.value === "stay" ? "stay" : "logout";
    const next = await call("/logout/confirm", { request: new FormData(form).get("request"), decision });
    location.assign(next.redirectTo);
  } catch (e) { out(String(e && e.message || e), false); }
});
// The landing page has no form; the enrol, sign-in and link-confirmation pages do.
if (form && form.id !== "consent" && form.id !== "logout") form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(form);
  try {
    if (form.id === "enrol") {
      const clientId = f.get("clientId") || undefined;
      const email = f.get("email"), displayName = f.get("displayName") || undefined;
      // Signed in (this browser's session), the account's own passkey list grows directly; otherwise
      // the e-mail is proven first with a code sent to it (docs/identity.md).
      let started;
      if (form.dataset.signedInAs && form.dataset.signedInAs === String(email).trim().toLowerCase()) {
        started = await call("/enrolment/request", { email, displayName, clientId });
      } else if (form.dataset.verification && form.dataset.email === email) {
        await call("/enrolment/email/verify", { verificationId: form.dataset.verification, code: f.get("code") || "" });
        started = await call("/enrolment/request", { email, displayName, clientId, emailVerificationId: form.dataset.verification });
      } else {
        const sent = await call("/enrolment/email", { email });
        form.dataset.verification = sent.verificationId;
        form.dataset.email = email;
        document.getElementById("code-step").hidden = false;
        document.getElementById("code").focus();
        out("We sent a code to " + email + ". Enter it, then press Create passkey again.", true);
        document.getElementById("result").className = "";
        return;
      }
      const cred = await navigator.credentials.create({ publicKey: creationOptions(started.options) });
      const done = await call("/enrolment/verify", { enrolmentId: started.enrolmentId, credential: registrationJSON(cred) });
      delete form.dataset.verification;
      out("Passkey enrolled for " + done.email + " (credential " + done.credentialId + ")", true);
      const back = f.get("returnTo");
      // Enrolled on the way to an RP: sign in with the new passkey, then continue to the RP.
      if (back) location.assign(api + "/signin?" + new URLSearchParams({ client_id: clientId || "", return_to: back }));
    } else if (form.id === "link") {
      const offerId = f.get("offerId");
      const started = await call("/idp/link/request", { offerId });
      const cred = await navigator.credentials.get({ publicKey: requestOptions(started.options) });
      const done = await call("/idp/link/confirm", { offerId, signinId: started.signinId, assertion: assertionJSON(cred) });
      out(started.provider + " is now linked to " + started.email + ".", true);
      location.assign(done.returnTo);
    } else {
      const started = await call("/signin/request", { clientId: f.get("clientId"), email: f.get("email") || undefined });
      const cred = await navigator.credentials.get({ publicKey: requestOptions(started.options) });
      const token = await call("/signin/verify", { signinId: started.signinId, assertion: assertionJSON(cred) });
      const back = f.get("returnTo");
      if (back) { out("Signed in. Returning to the application…", true); location.assign(back); return; }
      const me = await call("/v2/me", undefined, token.access_token);
      document.getElementById("token").value = token.access_token;
      out("Signed in as " + me.email + ". GET " + api + "/v2/me answered with your account.", true);
    }
  } catch (e) { out(String(e && e.message || e), false); }
});
`
