/**
 * The signing frame's script (`/ssc/frame`), served from the engine's own origin so the frame's CSP
 * can forbid inline script. docs/signing-frame.md.
 */
import { startAuthentication } from "@simplewebauthn/browser"
import type { AuthenticationResponseJSON } from "@simplewebauthn/browser"
import { api, byId, exactOrigin, messageOf, nameOf } from "./dom.ts"

const frameClientId = document.documentElement.dataset["clientId"] || ""
const approveButton = byId<HTMLButtonElement>("approve")
const cancelButton = byId<HTMLButtonElement>("cancel")
const retryButton = byId<HTMLButtonElement>("retry")
const statusLine = byId("status")

// Parameters come in the fragment only: browsers never send it to a server, so the token stays out of logs.
const params = new URLSearchParams(location.hash.slice(1))
const token = params.get("token") || ""
// A /v2/sign request or batch opened by id (the spec: the request id is opened in the frame for approval).
const pendingId = params.get("request") || params.get("batch") || ""
const pendingKind = params.get("request") ? "request" : params.get("batch") ? "batch" : null
const documentName = params.get("documentName") || ""
const requestedMode = params.get("mode")

// The parent's origin: every message goes to exactly this origin, never to "*".
const parentOrigin = exactOrigin(params.get("origin"))
const post = (message: Record<string, unknown>) => {
  if (parentOrigin !== null && window.parent !== window) window.parent.postMessage(message, parentOrigin)
}

/** The signing token's claims as the frame shows them (the engine checks the token; the frame only displays). */
interface Claims {
  readonly document_hash?: unknown
  readonly email?: unknown
  readonly loa?: unknown
  readonly exp?: unknown
}

const base64UrlToBytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0))

function claimsOf(jwt: string): Claims | null {
  const parts = jwt.split(".")
  if (parts.length !== 3 || parts[1] === undefined) return null
  try {
    const claims: unknown = JSON.parse(new TextDecoder().decode(base64UrlToBytes(parts[1])))
    return claims !== null && typeof claims === "object" ? (claims as Claims) : null
  } catch {
    return null
  }
}

function setState(state: string, text?: string, cls?: string) {
  document.body.dataset["state"] = state
  statusLine.textContent = text || ""
  statusLine.className = cls || ""
}

let finished = false
function fail(message: string, retryable: boolean) {
  setState("error", message, "err")
  approveButton.disabled = true
  approveButton.hidden = true
  retryButton.hidden = !retryable
  retryButton.disabled = false
  cancelButton.disabled = false
  post({ type: "SSC_SIGN_ERROR", error: message })
}

/** A refusal from the engine (its HTTP status), or a network failure (`retryable`). */
class CallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message)
  }
}

async function call<T>(path: string, body?: unknown, absolute = false): Promise<T> {
  let res: Response
  try {
    res = await fetch(
      (absolute ? "" : api) + path,
      body === undefined
        ? { method: "GET", credentials: "omit" }
        : { method: "POST", headers: { "content-type": "application/json" }, credentials: "omit", body: JSON.stringify(body) },
    )
  } catch {
    throw new CallError("Signet could not be reached", 0, true)
  }
  let data: (T & { error?: string; error_description?: string }) | null = null
  try {
    data = await res.json()
  } catch {
    data = null
  }
  if (!res.ok) throw new CallError(data?.error || data?.error_description || `HTTP ${res.status}`, res.status, false)
  return data as T
}

const claims = claimsOf(token)
const documentHash = typeof claims?.document_hash === "string" ? claims.document_hash.toLowerCase() : ""
const mode =
  requestedMode === "registered" || requestedMode === "anonymous"
    ? requestedMode
    : typeof claims?.email === "string" && claims.email !== ""
      ? "registered"
      : "anonymous"

if (pendingKind === null) {
  byId("documentName").textContent = documentName || "(unnamed document)"
  byId("documentHash").textContent = documentHash || "(unknown)"
  byId("loa").textContent = typeof claims?.loa === "string" ? claims.loa : "(unknown)"
  byId("signer").textContent =
    claims === null ? "(unknown)" : mode === "registered" && typeof claims.email === "string" ? claims.email : "Any passkey enrolled with Signet"
}

/** A pending request or batch, as GET /v2/sign/requests/{id} or /v2/sign/batch/{id} shows it. */
interface PendingView {
  readonly kind: "request" | "batch"
  readonly id: string
  readonly clientId?: string
  readonly rpName?: string
  readonly rpId: string
  readonly loa: string
  readonly challenge: string
  readonly credentialId: string
  readonly authUrl: string
  readonly documents: ReadonlyArray<{ readonly id: string; readonly name?: string; readonly hash: string }>
}

let pending: PendingView | null = null
function showPending(view: PendingView) {
  pending = view
  // the RP that created the request, as the engine records it (never the embedding page's claim)
  if (view.rpName) byId("rp").textContent = view.rpName
  const docs = view.documents
  byId("documentName").textContent = view.kind === "batch" ? `${docs.length} documents` : docs[0]?.name || "(unnamed document)"
  byId("documentHash").textContent = view.kind === "batch" ? "listed below" : (docs[0]?.hash ?? "")
  byId("loa").textContent = view.loa
  byId("signer").textContent = "Your passkey"
  if (view.kind === "batch") {
    const list = byId("documents")
    for (const d of docs) {
      const item = document.createElement("li")
      const name = document.createElement("strong")
      name.textContent = d.id
      const hash = document.createElement("div")
      hash.className = "hash"
      hash.textContent = d.hash
      item.append(name, hash)
      list.append(item)
    }
    list.hidden = false
  }
}

const passkey = (challenge: string, rpId: string, credentialId: string | undefined): Promise<AuthenticationResponseJSON> =>
  startAuthentication({
    optionsJSON: {
      challenge,
      rpId,
      allowCredentials: credentialId ? [{ id: credentialId, type: "public-key" }] : [],
      userVerification: "required",
    },
  })

async function approvePending(view: PendingView) {
  const assertion = await passkey(view.challenge, view.rpId, view.credentialId)
  setState("approving", "Signing…", "busy")
  // The /v2/sign completion calls take the assertion without userHandle.
  const { userHandle: _, ...response } = assertion.response
  const done = await call<{ readonly status?: string }>(view.authUrl, { assertion: { ...assertion, response } }, true)
  return { type: "SSC_SIGN_COMPLETE", kind: view.kind, id: view.id, ...done }
}

interface Signed {
  readonly signatureId: string
  readonly signatureBase64: string
  readonly documentHash: string
  readonly credentialId: string
  readonly timestamp: string
  readonly mode: string
  readonly levelOfAssurance: string
  readonly userVerified: boolean
}

async function approve() {
  if (finished) return
  approveButton.disabled = true
  cancelButton.disabled = true
  retryButton.hidden = true
  approveButton.hidden = false
  setState("approving", "Waiting for your passkey…", "busy")
  let stage: "challenge" | "passkey" | "finalize" = "challenge"
  try {
    if (pending !== null) {
      stage = "passkey"
      const message = await approvePending(pending)
      finished = true
      setState("done", pending.kind === "batch" ? `Signed · ${message.status}` : "Signed", "ok")
      approveButton.hidden = true
      cancelButton.hidden = true
      post(message)
      return
    }
    const challenge = await call<{ operationId: string; challenge: string; rpId: string; credentialID?: string }>("/ssc/challenge", {
      documentHash,
      documentName,
      rpOrigin: parentOrigin,
      mode,
      token,
    })
    stage = "passkey"
    const assertion = await passkey(challenge.challenge, challenge.rpId, challenge.credentialID)
    stage = "finalize"
    setState("approving", "Signing…", "busy")
    const signed = await call<Signed>("/ssc/finalize", { operationId: challenge.operationId, documentHash, assertion })
    finished = true
    setState("done", `Signed · signature ${signed.signatureId}`, "ok")
    approveButton.hidden = true
    cancelButton.hidden = true
    post({
      type: "SSC_SIGN_COMPLETE",
      signatureId: signed.signatureId,
      signatureBase64: signed.signatureBase64,
      documentHash: signed.documentHash,
      credentialId: signed.credentialId,
      timestamp: signed.timestamp,
      mode: signed.mode,
      levelOfAssurance: signed.levelOfAssurance,
      userVerified: signed.userVerified,
    })
  } catch (e) {
    const name = nameOf(e)
    if (stage === "passkey" && (name === "NotAllowedError" || name === "AbortError")) {
      fail("The passkey was not used: the request was refused or timed out.", true)
    } else if (stage === "passkey" && name === "SecurityError") {
      fail(`The browser refused the passkey request for this page (${messageOf(e) || name}).`, false)
    } else {
      const status = e instanceof CallError ? e.status : 0
      // A refused challenge (bad or expired token, unauthorised origin) cannot succeed on a retry; the rest can.
      const retryable = (e instanceof CallError && e.retryable) || status === 0 || status === 429 || status >= 500 || stage !== "challenge"
      fail(messageOf(e), retryable)
    }
  }
}

function cancel() {
  if (finished) return
  finished = true
  setState("cancelled", "Cancelled. Nothing was signed.", "")
  approveButton.hidden = true
  retryButton.hidden = true
  cancelButton.hidden = true
  post({ type: "SSC_SIGN_CANCELLED" })
}

approveButton.addEventListener("click", () => void approve())
retryButton.addEventListener("click", () => void approve())
cancelButton.addEventListener("click", cancel)

post({ type: "SSC_SIGN_READY" })

/** Why this frame cannot offer to sign, or null when it can. */
function problemOf(): string | null {
  const ancestor = location.ancestorOrigins?.[0]
  if (parentOrigin === null) return "This signing frame was opened without a valid parent origin."
  if (window.parent === window) return "This signing frame must be embedded in the requesting site's page."
  if (ancestor !== undefined && ancestor !== "null" && ancestor !== parentOrigin) return `The embedding page is not ${parentOrigin}.`
  if (pendingKind !== null) return /^[0-9a-f-]{36}$/.test(pendingId) ? noPasskeys() : "The signing request id is invalid."
  if (!token) return "No signing token was given."
  if (claims === null || !/^[0-9a-f]{64}$/.test(documentHash)) return "The signing token is invalid."
  if (typeof claims.exp === "number" && claims.exp * 1000 < Date.now() - 60000) return "The signing token has expired."
  return noPasskeys()
}
const noPasskeys = () => (window.PublicKeyCredential ? null : "This browser does not support passkeys.")

const ready = () => {
  approveButton.disabled = false
  cancelButton.disabled = false
  setState("ready", "", "")
}
const problem = problemOf()
if (problem !== null) {
  fail(problem, false)
} else if (pendingKind !== null) {
  call<PendingView>((pendingKind === "batch" ? "/v2/sign/batch/" : "/v2/sign/requests/") + pendingId)
    .then((view) => {
      showPending(view)
      // A request made by another RP than the one this frame was opened for is shown for what it is and not approved here.
      if (view.clientId && view.clientId !== frameClientId) {
        fail(`This signing request was made by ${view.rpName}, not by the site that opened this frame.`, false)
        return
      }
      ready()
    })
    .catch((e: unknown) => fail(messageOf(e), false))
} else {
  ready()
}
