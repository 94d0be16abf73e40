/**
 * The hosted pages' script (enrolment, sign-in, account link, consent, logout confirmation),
 * served from the engine's own origin so the CSP can forbid inline script.
 */
import { startAuthentication, startRegistration } from "@simplewebauthn/browser"
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser"
import { api, byId, messageOf } from "./dom.ts"

type Json = Record<string, unknown>

let csrf: string | undefined
/** A JSON call to the engine with this browser's session cookie and its CSRF token; a refusal throws its message. */
async function call<T = Json>(path: string, body?: unknown, token?: string): Promise<T> {
  if (csrf === undefined) csrf = ((await (await fetch(`${api}/session`, { credentials: "same-origin" })).json()) as { csrfToken: string }).csrfToken
  const headers: Record<string, string> = { "content-type": "application/json", "x-csrf-token": csrf }
  if (token) headers["authorization"] = `Bearer ${token}`
  const res = await fetch(api + path, {
    method: body === undefined ? "GET" : "POST",
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const data = (await res.json()) as T & { error?: string; error_description?: string }
  if (!res.ok) throw new Error(data.error || data.error_description || `HTTP ${res.status}`)
  return data
}

const out = (text: string, ok: boolean) => {
  const el = byId("result")
  el.textContent = text
  el.className = ok ? "ok" : "err"
}

/** A form field's text; "" when absent. */
const field = (f: FormData, name: string): string => {
  const value = f.get(name)
  return typeof value === "string" ? value : ""
}

/** The button that submitted the form, if any. */
const submitterValue = (ev: SubmitEvent): string => (ev.submitter instanceof HTMLButtonElement ? ev.submitter.value : "")

/** A decision form (consent, logout confirmation): the answer goes to `path`, which says where to go next. */
const decide = (form: HTMLFormElement, path: string, decision: (ev: SubmitEvent) => string) =>
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault()
    try {
      const next = await call<{ redirectTo: string }>(path, { request: new FormData(form).get("request"), decision: decision(ev) })
      location.assign(next.redirectTo)
    } catch (e) {
      out(messageOf(e), false)
    }
  })

async function enrol(form: HTMLFormElement, f: FormData) {
  const clientId = field(f, "clientId") || undefined
  const email = field(f, "email")
  const displayName = field(f, "displayName") || undefined
  // Signed in (this browser's session), the account's own passkey list grows directly; otherwise
  // the e-mail is proven first with a code sent to it (docs/identity.md).
  let started: { enrolmentId: string; options: PublicKeyCredentialCreationOptionsJSON }
  if (form.dataset["signedInAs"] && form.dataset["signedInAs"] === email.trim().toLowerCase()) {
    started = await call("/enrolment/request", { email, displayName, clientId })
  } else if (form.dataset["verification"] && form.dataset["email"] === email) {
    await call("/enrolment/email/verify", { verificationId: form.dataset["verification"], code: field(f, "code") })
    started = await call("/enrolment/request", { email, displayName, clientId, emailVerificationId: form.dataset["verification"] })
  } else {
    const sent = await call<{ verificationId: string }>("/enrolment/email", { email })
    form.dataset["verification"] = sent.verificationId
    form.dataset["email"] = email
    byId("code-step").hidden = false
    byId("code").focus()
    out(`We sent a code to ${email}. Enter it, then press Create passkey again.`, true)
    byId("result").className = ""
    return
  }
  const credential = await startRegistration({ optionsJSON: started.options })
  const done = await call<{ email: string; credentialId: string }>("/enrolment/verify", { enrolmentId: started.enrolmentId, credential })
  delete form.dataset["verification"]
  out(`Passkey enrolled for ${done.email} (credential ${done.credentialId})`, true)
  const back = field(f, "returnTo")
  // Enrolled on the way to an RP: sign in with the new passkey, then continue to the RP.
  if (back) location.assign(`${api}/signin?${new URLSearchParams({ client_id: clientId ?? "", return_to: back })}`)
}

async function link(f: FormData) {
  const offerId = field(f, "offerId")
  const started = await call<{ signinId: string; options: PublicKeyCredentialRequestOptionsJSON; provider: string; email: string }>("/idp/link/request", {
    offerId,
  })
  const assertion = await startAuthentication({ optionsJSON: started.options })
  const done = await call<{ returnTo: string }>("/idp/link/confirm", { offerId, signinId: started.signinId, assertion })
  out(`${started.provider} is now linked to ${started.email}.`, true)
  location.assign(done.returnTo)
}

async function signIn(f: FormData) {
  const started = await call<{ signinId: string; options: PublicKeyCredentialRequestOptionsJSON }>("/signin/request", {
    clientId: field(f, "clientId"),
    email: field(f, "email") || undefined,
  })
  const assertion = await startAuthentication({ optionsJSON: started.options })
  const token = await call<{ access_token: string }>("/signin/verify", { signinId: started.signinId, assertion })
  const back = field(f, "returnTo")
  if (back) {
    out("Signed in. Returning to the application…", true)
    location.assign(back)
    return
  }
  const me = await call<{ email: string }>("/v2/me", undefined, token.access_token)
  byId<HTMLTextAreaElement>("token").value = token.access_token
  out(`Signed in as ${me.email}. GET ${api}/v2/me answered with your account.`, true)
}

const form = document.querySelector("form")
// The landing page has no form; the others have one whose id says which page it is.
if (form?.id === "consent") decide(form, "/authorize/consent", (ev) => (submitterValue(ev) === "deny" ? "deny" : "allow"))
else if (form?.id === "logout") decide(form, "/logout/confirm", (ev) => (submitterValue(ev) === "stay" ? "stay" : "logout"))
else if (form)
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault()
    const f = new FormData(form)
    try {
      if (form.id === "enrol") await enrol(form, f)
      else if (form.id === "link") await link(f)
      else await signIn(f)
    } catch (e) {
      out(messageOf(e), false)
    }
  })
