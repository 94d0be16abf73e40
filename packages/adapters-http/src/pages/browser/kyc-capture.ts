/**
 * The hosted KYC capture pages' script (desktop capture, desktop waiting for a phone, phone
 * handoff), served from the engine's own origin so the pages' CSP can forbid inline script.
 * docs/kyc.md ("Hosted capture", "Phone handoff").
 */
import QRCode from "qrcode"
import { api, byId, exactOrigin, messageOf, nameOf, sleep } from "./dom.ts"

const statusLine = byId("status")
const guide = byId("guide")
const video = byId<HTMLVideoElement>("video")
const stage = byId("stage")
const frame = byId("frame")
const captureButton = byId<HTMLButtonElement>("capture")
const verdictLine = byId("verdict")
const docType = byId("doctype")

// Parameters come in the fragment (never sent to a server); it is cleared from the address bar at once.
const params = new URLSearchParams(location.hash.slice(1))
if (location.hash) history.replaceState(null, "", location.pathname + location.search)
const mode = document.body.dataset["mode"]
const handoffId = mode === "phone" ? document.body.dataset["handoff"] || "" : params.get("handoff") || ""
const token = mode === "phone" ? handoffId : params.get("token") || ""

// The RP page that opened (or framed) this page gets the outcome, but only at the origin it named.
const rpOrigin = exactOrigin(params.get("origin"))
const notify = (message: Record<string, unknown>) => {
  if (rpOrigin === null) return
  const target: Window | null = window.opener ?? (window.parent !== window ? window.parent : null)
  if (target) target.postMessage(message, rpOrigin)
}

const LONG_EDGE_DOCUMENT = 1600
const LONG_EDGE_FACE = 1280
const JPEG_QUALITY = 0.85
const FACE_FRAMES = 5
const TERMINAL = ["verified", "needs_review", "failed"]

/** A verification's status as the status endpoints show it. */
interface Status {
  readonly status: string
  readonly reasons?: ReadonlyArray<string>
  readonly code?: string
  readonly error?: string
  readonly reason?: string
  readonly transactionId?: string
}

function setState(state: string, text?: string, cls?: string) {
  document.body.dataset["state"] = state
  statusLine.textContent = text || ""
  statusLine.className = cls || ""
}

/** A JSON call; never throws: a network failure is status 0 with a message to show. */
async function call(method: string, path: string, body?: unknown, bearer?: string): Promise<{ status: number; body: Status }> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers["content-type"] = "application/json"
  if (bearer) headers["authorization"] = `Bearer ${bearer}`
  let res: Response
  try {
    res = await fetch(api + path, { method, headers, credentials: "omit", cache: "no-store", ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  } catch {
    return { status: 0, body: { status: "", error: "The network is unavailable; check your connection" } }
  }
  let json: Status | null = null
  try {
    json = await res.json()
  } catch {
    json = null
  }
  return { status: res.status, body: json || { status: "" } }
}
const errorOf = (r: { status: number; body: Status }) =>
  r.status === 404 ? "This capture link has expired or was replaced; start again from the service" : r.body.error || `Error ${r.status}`

let stream: MediaStream | null = null
function stopCamera() {
  if (stream !== null) {
    for (const t of stream.getTracks()) t.stop()
    stream = null
  }
  video.srcObject = null
}
async function startCamera(facing: string) {
  stopCamera()
  if (!navigator.mediaDevices?.getUserMedia) throw new Error("This browser cannot use the camera")
  stream = await navigator.mediaDevices.getUserMedia({
    audio: false,
    video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } },
  })
  video.srcObject = stream
  await video.play()
  for (let i = 0; i < 50 && !(video.videoWidth > 0); i++) await sleep(100)
  stage.hidden = false
}

type Grab = { readonly dark: true } | { readonly dark: false; readonly width: number; readonly height: number; readonly jpeg: string }

// One frame, scaled so its long edge is longEdge px, as base64 JPEG at quality 0.85; null when the camera shows nothing yet.
function grab(longEdge: number): Grab | null {
  const w = video.videoWidth
  const h = video.videoHeight
  if (!(w > 0 && h > 0)) return null
  const scale = longEdge / Math.max(w, h)
  const canvas = document.createElement("canvas")
  canvas.width = Math.round(w * scale)
  canvas.height = Math.round(h * scale)
  const ctx = canvas.getContext("2d")
  const probe = document.createElement("canvas")
  probe.width = 32
  probe.height = 24
  const p = probe.getContext("2d", { willReadFrequently: true })
  if (ctx === null || p === null) return null
  ctx.drawImage(video, 0, 0, canvas.width, canvas.height)
  p.drawImage(canvas, 0, 0, 32, 24)
  const px = p.getImageData(0, 0, 32, 24).data
  let sum = 0
  for (let i = 0; i < px.length; i += 4) sum += 0.299 * (px[i] ?? 0) + 0.587 * (px[i + 1] ?? 0) + 0.114 * (px[i + 2] ?? 0)
  // too dark to read
  if (sum / (px.length / 4) < 30) return { dark: true }
  return {
    dark: false,
    width: canvas.width,
    height: canvas.height,
    jpeg: canvas.toDataURL("image/jpeg", JPEG_QUALITY).replace(/^data:image\/jpeg;base64,/, ""),
  }
}

function showVerdict(s: Status) {
  stopCamera()
  stage.hidden = true
  captureButton.hidden = true
  docType.hidden = true
  guide.hidden = true
  document.body.dataset["verdict"] = s.status
  const reasons = (s.reasons || []).join(", ")
  if (s.status === "verified") {
    verdictLine.textContent = "Identity verified"
    verdictLine.className = "ok"
  } else if (s.status === "needs_review") {
    verdictLine.textContent = `Thank you. A person will review your capture (${reasons})`
    verdictLine.className = "busy"
  } else {
    verdictLine.textContent = `Verification failed${reasons ? ` (${reasons})` : ""}`
    verdictLine.className = "err"
  }
  setState("done", "", "")
  notify({ type: "SIGNET_KYC_RESULT", status: s.status, reasons: s.reasons || [] })
}

const statusPath = mode === "phone" ? `/kyc/handoff/${encodeURIComponent(handoffId)}/status` : "/kyc/capture/status"

// Polls the session's status (status and reasons only) until it leaves the capture states.
async function pollVerdict() {
  for (let i = 0; i < 30; i++) {
    const r = await call("GET", statusPath, undefined, token)
    if (r.status !== 200) {
      setState("error", errorOf(r), "err")
      return
    }
    if (TERMINAL.includes(r.body.status)) {
      showVerdict(r.body)
      return
    }
    await sleep(1000)
  }
  setState("error", "No verdict yet; your service will tell you the outcome", "err")
}

function waitForClick(label: string) {
  captureButton.textContent = label
  captureButton.hidden = false
  captureButton.disabled = false
  return new Promise<void>((resolve) =>
    captureButton.addEventListener(
      "click",
      () => {
        captureButton.disabled = true
        resolve()
      },
      { once: true },
    ),
  )
}

async function faceStep() {
  frame.className = "frame face"
  stage.className = "stage"
  guide.textContent = "Face the camera in good light. Centre your face in the oval, remove glasses and hats; when asked, slowly turn your head."
  setState("camera", "Starting the camera…", "busy")
  await startCamera("user")
  for (;;) {
    // A retry message stays up until the next press.
    if (document.body.dataset["state"] !== "retry") setState("ready", "Centre your face in the oval, then press the button.", "")
    await waitForClick("Capture my face")
    // the active liveness challenge: a head turn across the frames (docs/kyc-local.md)
    setState("capturing", "Slowly turn your head to one side and back…", "busy")
    const frames: Array<string> = []
    for (let i = 0; i < FACE_FRAMES; i++) {
      const f = grab(LONG_EDGE_FACE)
      if (f !== null && !f.dark) frames.push(f.jpeg)
      await sleep(300)
    }
    if (frames.length === 0) {
      setState("retry", "Too dark to see your face; move to better light and try again.", "err")
      continue
    }
    setState("uploading", "Checking that you are there…", "busy")
    const relay = await call("POST", "/kyc/faceapi", { frames }, token)
    if (relay.status !== 200) {
      setState("error", errorOf(relay), "err")
      stopCamera()
      return
    }
    if (relay.body.status !== "confirmed") {
      setState("retry", `We could not confirm a live face (${relay.body.reason}); try again.`, "err")
      continue
    }
    notify({ type: "SIGNET_KYC_CAPTURED", transactionId: relay.body.transactionId })
    setState("matching", "Comparing with your document…", "busy")
    const finished = await call("POST", "/kyc/capture/finish", { transactionId: relay.body.transactionId }, token)
    if (finished.status !== 200) {
      setState("error", errorOf(finished), "err")
      stopCamera()
      return
    }
    // the matcher could not use this selfie (turned, too dark, blurred…): the verification stays open, take another
    const selfieProblems = (finished.body.reasons || []).filter((r) => r.startsWith("selfie_"))
    if (selfieProblems.length > 0) {
      setState("retry", `Your face could not be compared (${selfieProblems.join(", ")}); face the camera in good light and try again.`, "err")
      continue
    }
    stopCamera()
    return pollVerdict()
  }
}

async function documentStep(): Promise<boolean> {
  frame.className = "frame document"
  stage.className = "stage document"
  docType.hidden = false
  guide.textContent = "Place the document flat on a dark surface in good light. All four edges must be visible inside the frame; avoid glare."
  setState("camera", "Starting the camera…", "busy")
  await startCamera("environment")
  for (;;) {
    const idCard = docType.querySelector<HTMLInputElement>("input[value=id]")?.checked === true
    const sides = idCard ? ["front", "back"] : ["photo page"]
    const images: Array<string> = []
    for (const side of sides) {
      if (document.body.dataset["state"] !== "retry" || images.length > 0) {
        setState("ready", `Show the ${side}, all four edges inside the frame, then press the button.`, "")
      }
      await waitForClick(`Capture the ${side}`)
      const f = grab(LONG_EDGE_DOCUMENT)
      if (f === null || f.dark) break
      images.push(f.jpeg)
    }
    if (images.length !== sides.length) {
      setState("retry", "Too dark to read the document; move to better light and try again.", "err")
      continue
    }
    setState("uploading", "Reading the document…", "busy")
    const r = await call("POST", `/kyc/handoff/${encodeURIComponent(handoffId)}/document`, { images }, undefined)
    if (r.status !== 200) {
      setState("error", errorOf(r), "err")
      stopCamera()
      return false
    }
    if (r.body.status === "document_verified") {
      docType.hidden = true
      return true
    }
    setState("retry", `The document was not accepted (${(r.body.reasons || []).join(", ")}); try again with the whole page sharp and visible.`, "err")
  }
}

async function waitForPhone() {
  stage.hidden = true
  captureButton.hidden = true
  const phoneUrl = `${location.origin}${api}/kyc/handoff/${handoffId}`
  byId("phoneUrl").textContent = phoneUrl
  // The link as a QR code, drawn here (no image service): a phone's camera opens it.
  await QRCode.toCanvas(byId("phoneQr") as HTMLCanvasElement, phoneUrl, { width: 232, margin: 2, errorCorrectionLevel: "M" }).catch(() => {
    byId("phoneQr").hidden = true
  })
  byId("handoff").hidden = false
  setState("waiting", "Open the link on your phone and follow the steps there. This page updates by itself.", "busy")
  for (;;) {
    const r = await call("GET", `/kyc/handoff/${encodeURIComponent(handoffId)}/status`)
    if (r.status !== 200) {
      setState("error", errorOf(r), "err")
      return
    }
    byId("code").textContent = `Code ${r.body.code || ""}`
    byId("code").hidden = false
    if (r.body.status === "verified" || r.body.status === "needs_review") {
      showVerdict(r.body)
      return
    }
    const reasons = r.body.reasons ?? []
    statusLine.textContent = `On the phone: ${r.body.status.replace("_", " ")}${reasons.length ? ` (${reasons.join(", ")})` : ""}. This page updates by itself.`
    await sleep(2000)
  }
}

async function main() {
  try {
    if (mode === "desktop" && handoffId !== "") return await waitForPhone()
    if (token === "") {
      setState("error", "This page needs a capture session; open it from your service.", "err")
      return
    }
    const first = await call("GET", statusPath, undefined, token)
    if (first.status !== 200) {
      setState("error", errorOf(first), "err")
      return
    }
    if (first.body.status === "verified") {
      showVerdict(first.body)
      return
    }
    if (mode === "phone" && (first.body.status === "pending" || first.body.status === "failed")) {
      if (!(await documentStep())) return
    } else if (first.body.status === "pending" || first.body.status === "failed") {
      setState("error", "Your document has not been accepted yet; your service asks for it first.", "err")
      return
    }
    await faceStep()
  } catch (e) {
    stopCamera()
    const name = nameOf(e)
    const denied = name === "NotAllowedError" || name === "SecurityError"
    setState("error", denied ? "Camera access was refused; allow the camera and reload the page." : `Camera unavailable: ${messageOf(e)}`, "err")
  }
}
void main()
