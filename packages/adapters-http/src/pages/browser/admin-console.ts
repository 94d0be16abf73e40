/**
 * The back-office console's script (every console page; `<body data-page>` says which), served
 * from the engine's origin so the CSP can forbid inline script. The administrator token lives in
 * this tab's sessionStorage only and goes out as a bearer header to `/admin/api/*`; no cookie is
 * set, so there is nothing to forge cross-site. Images and charts are fetched with the token and
 * shown through blob: URLs that are revoked when the page is left.
 */
import { api, byId, messageOf } from "./dom.ts"

const KEY = "signet-admin-token"
const REVIEWER = "signet-admin-reviewer"
const page = document.body.dataset["page"] ?? "rps"
const blobs: Array<string> = []

/** An RP as `GET /admin/api/relying-parties[/{clientId}]` gives it. */
interface RpView {
  readonly name: string
  readonly clientId: string
  readonly status: string
  readonly plan?: string | null
  readonly requestedPlan?: string | null
  readonly maxLoa: string
  readonly kycVerified: boolean
  readonly signingOrigins: ReadonlyArray<string>
  readonly redirectUris: ReadonlyArray<string>
  readonly postLogoutRedirectUris: ReadonlyArray<string>
  readonly contactUserId: string | null
  readonly usage: { readonly signaturesToday: number; readonly signaturesPerDay: number }
  readonly organisationChecks?: ReadonlyArray<{
    readonly outcome: string
    readonly legalName: string
    readonly documents: ReadonlyArray<{ readonly kind: string; readonly reference: string }>
    readonly checkedBy: string | null
    readonly createdAt: string
  }>
}

function status(text: string, ok: boolean) {
  const el = byId("result")
  el.textContent = text
  el.className = ok ? "ok" : "err"
}

const headers = () => ({ authorization: `Bearer ${sessionStorage.getItem(KEY)}` })

async function call<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${api}/admin/api${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...headers(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const data = (await res.json()) as T & { error?: string }
  if (res.status === 401) signOut()
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`)
  return data
}

/** A blob: URL for bytes fetched with the token (KYC images) or for a chart's SVG text. */
async function blobUrl(path: string): Promise<string> {
  const res = await fetch(`${api}/admin/api${path}`, { headers: headers(), cache: "no-store" })
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  const url = URL.createObjectURL(await res.blob())
  blobs.push(url)
  return url
}
function svgUrl(svg: string): string {
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }))
  blobs.push(url)
  return url
}
window.addEventListener("pagehide", () => {
  for (const url of blobs.splice(0)) URL.revokeObjectURL(url)
})

const enc = encodeURIComponent
const param = (name: string) => new URLSearchParams(location.search).get(name) ?? ""
const link = (path: string, text: string) => {
  const a = document.createElement("a")
  a.href = `${api}${path}`
  a.textContent = text
  return a
}

function cell(row: HTMLTableRowElement, content: string | Node, cls?: string) {
  const td = document.createElement("td")
  if (typeof content === "string") td.textContent = content
  else td.appendChild(content)
  if (cls) td.className = cls
  row.appendChild(td)
  return td
}
function button(text: string, onClick: () => Promise<void>) {
  const b = document.createElement("button")
  b.type = "button"
  b.textContent = text
  b.addEventListener("click", async () => {
    b.disabled = true
    try {
      await onClick()
    } catch (e) {
      status(messageOf(e), false)
    }
    b.disabled = false
  })
  return b
}
function tbody(id: string) {
  const body = byId<HTMLTableElement>(id).tBodies[0]!
  body.replaceChildren()
  return body
}
const lines = (id: string) =>
  byId<HTMLTextAreaElement>(id)
    .value.split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
const score = (s: number | null) => (s === null ? "—" : s.toFixed(2))

/** Each status command the console offers, and the statuses it applies to. */
const MOVES: Record<string, ReadonlyArray<string>> = { Approve: ["pending", "rejected", "suspended"], Reject: ["pending"], Suspend: ["approved"] }

function moveButtons(rp: RpView, after: () => Promise<void>) {
  const out: Array<HTMLButtonElement> = []
  for (const [move, from] of Object.entries(MOVES)) {
    if (!from.includes(rp.status)) continue
    out.push(
      button(move, async () => {
        const updated = await call<RpView>(`/relying-parties/${enc(rp.clientId)}/commands`, { _tag: move })
        status(`${updated.name} is ${updated.status}`, true)
        await after()
      }),
    )
  }
  return out
}

// ---------------------------------------------------------------- the pages

async function rpsPage() {
  const rps = await call<ReadonlyArray<RpView>>("/relying-parties")
  const body = tbody("rps")
  for (const rp of rps) {
    const row = document.createElement("tr")
    row.dataset["clientId"] = rp.clientId
    cell(row, link(`/admin/rp?clientId=${enc(rp.clientId)}`, rp.name))
    cell(row, rp.clientId, "mono")
    cell(row, rp.status, `status status-${rp.status}`)
    cell(row, (rp.plan || "none") + (rp.requestedPlan && rp.requestedPlan !== rp.plan ? ` (asked: ${rp.requestedPlan})` : ""))
    cell(row, rp.kycVerified ? "verified" : "not verified", "kyc")
    cell(row, `${rp.usage.signaturesToday} / ${rp.usage.signaturesPerDay}`, "usage")
    const actions = cell(row, "")
    for (const b of moveButtons(rp, load)) actions.appendChild(b)
    body.appendChild(row)
  }
  byId("count").textContent = `${rps.length} relying part${rps.length === 1 ? "y" : "ies"}`
}

interface DeliveryView {
  readonly id: number
  readonly eventType: string
  readonly url: string
  readonly status: string
  readonly attempts: number
  readonly lastStatus: number | null
  readonly lastError: string | null
}

async function rpPage() {
  const clientId = param("clientId")
  const rp = await call<RpView>(`/relying-parties/${enc(clientId)}`)
  byId("rp-name").textContent = rp.name
  byId("rp-id").textContent = rp.clientId
  byId("rp-status").textContent = rp.status
  byId("rp-status").className = `status-${rp.status}`
  byId("rp-plan").textContent = rp.plan || "none"
  byId("rp-usage").textContent = `${rp.usage.signaturesToday} / ${rp.usage.signaturesPerDay}`
  byId("rp-kyc-verified").textContent = rp.kycVerified ? "verified" : "not verified"
  byId("rp-moves").replaceChildren(...moveButtons(rp, load))
  byId<HTMLSelectElement>("plan").value = rp.plan ?? ""
  byId<HTMLSelectElement>("max-loa").value = rp.maxLoa
  byId<HTMLTextAreaElement>("origins").value = rp.signingOrigins.join("\n")
  byId<HTMLTextAreaElement>("redirects").value = rp.redirectUris.join("\n")
  byId<HTMLTextAreaElement>("post-logout").value = rp.postLogoutRedirectUris.join("\n")
  byId<HTMLInputElement>("contact").value = rp.contactUserId ?? ""
  byId<HTMLAnchorElement>("usage-link").href = `${api}/admin/usage?clientId=${enc(clientId)}`
  byId<HTMLAnchorElement>("kyc-link").href = `${api}/admin/kyc?status=all&clientId=${enc(clientId)}`
  const checks = tbody("checks")
  for (const c of rp.organisationChecks ?? []) {
    const row = document.createElement("tr")
    cell(row, c.outcome)
    cell(row, c.legalName)
    cell(row, c.documents.map((d) => `${d.kind}: ${d.reference}`).join("; "))
    cell(row, c.checkedBy ?? "")
    cell(row, c.createdAt)
    checks.appendChild(row)
  }
  const kyc = await call<{ enabled: boolean; identityScope: string }>(`/relying-parties/${enc(clientId)}/kyc`)
  byId<HTMLInputElement>("kyc-enabled").checked = kyc.enabled
  byId<HTMLSelectElement>("kyc-scope").value = kyc.identityScope
  const hooks = await call<{
    subscriptions: ReadonlyArray<{ id: number; url: string; events: ReadonlyArray<string> }>
    deliveries: ReadonlyArray<DeliveryView>
  }>(`/relying-parties/${enc(clientId)}/webhooks`)
  byId("subscriptions").replaceChildren(
    ...(hooks.subscriptions.length === 0 ? [Object.assign(document.createElement("li"), { textContent: "No webhook subscriptions" })] : []),
    ...hooks.subscriptions.map((s) => Object.assign(document.createElement("li"), { textContent: `#${s.id} ${s.url} (${s.events.join(", ")})` })),
  )
  const deliveries = tbody("deliveries")
  for (const d of hooks.deliveries) {
    const row = document.createElement("tr")
    row.dataset["deliveryId"] = String(d.id)
    cell(row, String(d.id))
    cell(row, d.eventType)
    cell(row, d.url, "mono")
    cell(row, d.status, `delivery-status status-${d.status}`)
    cell(row, String(d.attempts), "attempts")
    cell(row, d.lastError ?? (d.lastStatus === null ? "" : String(d.lastStatus)))
    const actions = cell(row, "")
    if (d.status === "failed") {
      actions.appendChild(
        button("Retry", async () => {
          await call(`/relying-parties/${enc(clientId)}/deliveries/${d.id}/retry`, {})
          status(`Delivery ${d.id} is queued again`, true)
          await load()
        }),
      )
    }
    deliveries.appendChild(row)
  }
}

function rpSetup() {
  const clientId = () => param("clientId")
  byId("settings").addEventListener("submit", async (ev) => {
    ev.preventDefault()
    const plan = byId<HTMLSelectElement>("plan").value
    const contact = byId<HTMLInputElement>("contact").value.trim()
    const commands = [
      { _tag: "SetPlan", plan: plan === "" ? null : plan },
      { _tag: "SetMaxLoa", loa: byId<HTMLSelectElement>("max-loa").value },
      { _tag: "SetSigningOrigins", origins: lines("origins") },
      { _tag: "SetRedirectUris", uris: lines("redirects") },
      { _tag: "SetPostLogoutRedirectUris", uris: lines("post-logout") },
      { _tag: "SetContact", userId: contact === "" ? null : contact },
    ]
    try {
      for (const c of commands) await call(`/relying-parties/${enc(clientId())}/commands`, c)
      status("Settings saved", true)
      await load()
    } catch (e) {
      status(messageOf(e), false)
    }
  })
  byId("kyc-switch").addEventListener("submit", async (ev) => {
    ev.preventDefault()
    try {
      await call(`/relying-parties/${enc(clientId())}/kyc`, {
        enabled: byId<HTMLInputElement>("kyc-enabled").checked,
        identityScope: byId<HTMLSelectElement>("kyc-scope").value,
      })
      status("KYC settings saved", true)
    } catch (e) {
      status(messageOf(e), false)
    }
  })
  const rotate = (which: "client" | "ssc") => async () => {
    if (!confirm(`Rotate the ${which === "client" ? "client" : "SSC"} secret? The old one keeps working for the grace period.`)) return
    try {
      const answer = await call<{ clientSecret?: string; sscSecret?: string; previousValidUntil: string | null }>(
        `/relying-parties/${enc(clientId())}/rotate-secrets`,
        { which },
      )
      byId("new-secret-label").textContent = which === "client" ? "New client secret" : "New SSC secret"
      byId("new-secret-value").textContent = (which === "client" ? answer.clientSecret : answer.sscSecret) ?? ""
      byId("new-secret").hidden = false
      status(`Secret rotated; the previous one works until ${answer.previousValidUntil ?? "now"}`, true)
    } catch (e) {
      status(messageOf(e), false)
    }
  }
  byId("rotate-client").addEventListener("click", rotate("client"))
  byId("rotate-ssc").addEventListener("click", rotate("ssc"))
}

interface QueueEntry {
  readonly id: string
  readonly clientId: string
  readonly customerId: string
  readonly status: string
  readonly reasons: ReadonlyArray<string>
  readonly faceMatchScore: number | null
  readonly livenessScore: number | null
  readonly updatedAt: string
}

async function kycPage() {
  const statusFilter = byId<HTMLSelectElement>("status").value
  const client = byId<HTMLInputElement>("client-filter").value.trim()
  const list = await call<ReadonlyArray<QueueEntry>>(`/kyc/verifications?status=${enc(statusFilter)}${client === "" ? "" : `&clientId=${enc(client)}`}`)
  const body = tbody("queue")
  for (const v of list) {
    const row = document.createElement("tr")
    row.dataset["verificationId"] = v.id
    cell(row, link(`/admin/kyc/review?id=${enc(v.id)}`, v.customerId))
    cell(row, v.clientId, "mono")
    cell(row, v.status, `status status-${v.status}`)
    cell(row, score(v.faceMatchScore))
    cell(row, score(v.livenessScore))
    cell(row, v.reasons.join(", "))
    cell(row, v.updatedAt)
    body.appendChild(row)
  }
  status(`${list.length} verification${list.length === 1 ? "" : "s"}`, true)
}

function kycSetup() {
  const s = param("status")
  if (s !== "") byId<HTMLSelectElement>("status").value = s
  byId<HTMLInputElement>("client-filter").value = param("clientId")
  byId("filter").addEventListener("submit", (ev) => {
    ev.preventDefault()
    void load()
  })
}

interface ReviewFile extends QueueEntry {
  readonly record: { readonly customerId: string; readonly phoneNumber: string; readonly rpUrn: string | null; readonly createdAt: string }
  readonly document: Readonly<Record<string, string | null>> | null
  readonly thresholds: { readonly liveness: number; readonly match: number; readonly review: number }
  readonly images: ReadonlyArray<{ readonly id: string; readonly kind: string; readonly position: number }>
  readonly history: ReadonlyArray<{
    readonly action: string
    readonly from: string | null
    readonly to: string | null
    readonly reasons: ReadonlyArray<string>
    readonly at: string
  }>
}

const FIELDS: ReadonlyArray<readonly [string, string]> = [
  ["surname", "Surname"],
  ["givenNames", "Given names"],
  ["docType", "Document type"],
  ["docNumber", "Document number"],
  ["personalNumber", "Personal number"],
  ["dateOfBirth", "Date of birth"],
  ["docExpiry", "Expiry"],
  ["nationality", "Nationality"],
]

async function reviewPage() {
  const id = param("id")
  const v = await call<ReviewFile>(`/kyc/verifications/${enc(id)}`)
  byId("v-id").textContent = v.id
  byId("v-status").textContent = v.status
  byId("v-status").className = `status-${v.status}`
  byId("v-reasons").textContent = v.reasons.join(", ") || "none"
  const t = v.thresholds
  byId("v-face").textContent = `${score(v.faceMatchScore)} (verified at ≥ ${t.match.toFixed(2)}, review at ≥ ${t.review.toFixed(2)})`
  byId("v-liveness").textContent = `${score(v.livenessScore)} (passes at ≥ ${t.liveness.toFixed(2)})`
  const figures = await Promise.all(
    v.images.map(async (image) => {
      const figure = document.createElement("figure")
      const img = document.createElement("img")
      const name = image.kind === "selfie" ? "Selfie frame" : `Document image ${image.position + 1}`
      img.alt = name
      img.src = await blobUrl(`/kyc/verifications/${enc(v.id)}/images/${enc(image.id)}`)
      const caption = document.createElement("figcaption")
      caption.textContent = name
      figure.append(img, caption)
      return figure
    }),
  )
  byId("images").replaceChildren(...figures)
  const fields = tbody("fields")
  const record: Record<string, string> = { customerId: v.record.customerId, phoneNumber: v.record.phoneNumber, rpUrn: v.record.rpUrn ?? "" }
  for (const [key, label] of [
    ...FIELDS,
    ["customerId", "Customer id"] as const,
    ["phoneNumber", "Phone number"] as const,
    ["rpUrn", "RP reference"] as const,
  ]) {
    const row = document.createElement("tr")
    const th = document.createElement("th")
    th.scope = "row"
    th.textContent = label
    row.appendChild(th)
    cell(row, v.document?.[key] ?? "")
    cell(row, record[key] ?? "")
    fields.appendChild(row)
  }
  const open = v.status === "needs_review"
  byId<HTMLButtonElement>("approve").disabled = !open
  byId<HTMLButtonElement>("reject").disabled = !open
  byId("history").replaceChildren(
    ...v.history.map((h) =>
      Object.assign(document.createElement("li"), {
        textContent: `${h.at} ${h.action}${h.to === null ? "" : ` → ${h.to}`}${h.reasons.length === 0 ? "" : ` (${h.reasons.join(", ")})`}`,
      }),
    ),
  )
}

function reviewSetup() {
  const reviewer = () => sessionStorage.getItem(REVIEWER) || "administrator"
  byId<HTMLFormElement>("decision").addEventListener("submit", async (ev) => {
    ev.preventDefault()
    const decision = (ev.submitter as HTMLButtonElement | null)?.value === "reject" ? "reject" : "approve"
    const reason = byId<HTMLTextAreaElement>("reason").value.trim()
    try {
      const answer = await call<{ status: string }>(`/kyc/verifications/${enc(param("id"))}/decision`, { decision, reason, reviewer: reviewer() })
      status(`Decision recorded: ${answer.status}`, true)
      await load()
    } catch (e) {
      status(messageOf(e), false)
    }
  })
  byId("erase").addEventListener("click", async () => {
    const reason = byId<HTMLTextAreaElement>("reason").value.trim()
    if (reason === "") return status("Give the reason for the erasure", false)
    if (!confirm("Erase this customer's verification, captures and images? This cannot be undone.")) return
    try {
      await call(`/kyc/verifications/${enc(param("id"))}/erase`, { reason, reviewer: reviewer() })
      status("Customer erased", true)
    } catch (e) {
      status(messageOf(e), false)
    }
  })
}

async function usagePage() {
  const clientId = byId<HTMLInputElement>("usage-client").value.trim()
  if (clientId === "") return status("Give a client id", false)
  const u = await call<{
    days: ReadonlyArray<{ day: string; signatures: number; quotaRefusals: number }>
    kyc: { byStatus: Record<string, number>; byReason: Record<string, number> }
    charts: { signatures: string; quotaRefusals: string; kycByStatus: string }
  }>(`/relying-parties/${enc(clientId)}/usage?days=${enc(byId<HTMLSelectElement>("usage-days").value)}`)
  const charts: ReadonlyArray<readonly [string, string]> = [
    [u.charts.signatures, "Signatures per day"],
    [u.charts.quotaRefusals, "Quota refusals per day"],
    [u.charts.kycByStatus, "KYC verifications by status"],
  ]
  byId("charts").replaceChildren(
    ...charts.map(([svg, title]) => {
      const figure = document.createElement("figure")
      figure.className = "chart"
      const img = document.createElement("img")
      img.src = svgUrl(svg)
      img.alt = `${title}; the numbers are in the table below`
      const caption = document.createElement("figcaption")
      caption.textContent = title
      figure.append(img, caption)
      return figure
    }),
  )
  const body = tbody("usage-table")
  for (const d of [...u.days].reverse()) {
    const row = document.createElement("tr")
    row.dataset["day"] = d.day
    cell(row, d.day)
    cell(row, String(d.signatures), "signatures")
    cell(row, String(d.quotaRefusals), "refusals")
    body.appendChild(row)
  }
  const outcomes = tbody("kyc-outcomes")
  for (const [label, n] of [
    ...Object.entries(u.kyc.byStatus).map(([k, v]) => [`status ${k}`, v] as const),
    ...Object.entries(u.kyc.byReason).map(([k, v]) => [`reason ${k}`, v] as const),
  ]) {
    const row = document.createElement("tr")
    cell(row, label)
    cell(row, String(n))
    outcomes.appendChild(row)
  }
}

function usageSetup() {
  byId<HTMLInputElement>("usage-client").value = param("clientId")
  byId("usage-form").addEventListener("submit", (ev) => {
    ev.preventDefault()
    void load()
  })
}

async function certificatesPage() {
  const serial = byId<HTMLInputElement>("serial").value.trim()
  const holder = byId<HTMLInputElement>("holder").value.trim()
  const body = tbody("certs")
  if (serial === "" && holder === "") return
  type Cert = { serial: string; subject: string; userId: string | null; status: string; notAfter: string; revocationReason: string | null }
  const certs = await call<ReadonlyArray<Cert>>(`/certificates?${serial === "" ? `holder=${enc(holder)}` : `serial=${enc(serial)}`}`)
  for (const c of certs) {
    const row = document.createElement("tr")
    row.dataset["serial"] = c.serial
    cell(row, c.serial, "mono")
    cell(row, c.subject)
    cell(row, c.userId ?? "", "mono")
    cell(row, c.status + (c.revocationReason === null ? "" : ` (${c.revocationReason})`), `status-${c.status}`)
    cell(row, c.notAfter)
    const actions = cell(row, "")
    if (c.status === "valid") {
      actions.appendChild(
        button("Revoke", async () => {
          const reason = prompt("Reason for the revocation (e.g. keyCompromise, cessationOfOperation)")
          if (reason === null || reason.trim() === "") return
          await call(`/certificates/${enc(c.serial)}/revoke`, { reason: reason.trim() })
          status(`Certificate ${c.serial} revoked`, true)
          await load()
        }),
      )
    }
    body.appendChild(row)
  }
  status(`${certs.length} certificate${certs.length === 1 ? "" : "s"}`, true)
}

function certificatesSetup() {
  byId<HTMLInputElement>("serial").value = param("serial")
  byId<HTMLInputElement>("holder").value = param("holder")
  byId("cert-search").addEventListener("submit", (ev) => {
    ev.preventDefault()
    void load()
  })
}

function auditQuery() {
  const q = new URLSearchParams()
  const put = (name: string, id: string) => {
    const v = byId<HTMLInputElement>(id).value.trim()
    if (v !== "") q.set(name, id.startsWith("f-from") || id.startsWith("f-to") ? `${v}Z` : v)
  }
  put("actor", "f-actor")
  put("action", "f-action")
  put("subject", "f-subject")
  put("from", "f-from")
  put("to", "f-to")
  return q
}

async function auditPage() {
  type Entry = { at: string; action: string; subject: string; actorUserId: string | null; actorClientId: string | null; detail: Record<string, unknown> }
  const entries = await call<ReadonlyArray<Entry>>(`/audit?${auditQuery()}`)
  const body = tbody("audit")
  for (const e of entries) {
    const row = document.createElement("tr")
    cell(row, e.at)
    cell(row, e.action, "action")
    cell(row, e.subject, "mono")
    cell(row, [e.actorUserId, e.actorClientId].filter((x) => x !== null).join(" @ ") || "engine")
    cell(
      row,
      Object.entries(e.detail)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join("; "),
    )
    body.appendChild(row)
  }
  status(`${entries.length} audit event${entries.length === 1 ? "" : "s"}`, true)
}

function auditSetup() {
  byId("audit-filter").addEventListener("submit", (ev) => {
    ev.preventDefault()
    void load()
  })
  byId("export").addEventListener("click", async () => {
    try {
      const q = auditQuery()
      q.set("format", "csv")
      const a = document.createElement("a")
      a.href = await blobUrl(`/audit?${q}`)
      a.download = "signet-audit.csv"
      a.click()
      status("Audit log exported", true)
    } catch (e) {
      status(messageOf(e), false)
    }
  })
}

// ---------------------------------------------------------------- sign-in and dispatch

const PAGES: Record<string, { readonly load: () => Promise<void>; readonly setup?: () => void }> = {
  rps: { load: rpsPage },
  rp: { load: rpPage, setup: rpSetup },
  kyc: { load: kycPage, setup: kycSetup },
  review: { load: reviewPage, setup: reviewSetup },
  usage: { load: async () => (byId<HTMLInputElement>("usage-client").value.trim() === "" ? undefined : usagePage()), setup: usageSetup },
  certificates: { load: certificatesPage, setup: certificatesSetup },
  audit: { load: auditPage, setup: auditSetup },
}
const current = PAGES[page] ?? PAGES["rps"]!

async function load() {
  try {
    await call("/session")
    await current.load()
    byId("login").hidden = true
    byId("console").hidden = false
  } catch (e) {
    status(messageOf(e), false)
  }
}

function signOut() {
  sessionStorage.removeItem(KEY)
  byId("console").hidden = true
  byId("login").hidden = false
}

current.setup?.()
byId("login").addEventListener("submit", async (ev) => {
  ev.preventDefault()
  const input = byId<HTMLInputElement>("token")
  sessionStorage.setItem(KEY, input.value.trim())
  const name = byId<HTMLInputElement>("reviewer-name").value.trim()
  if (name !== "") sessionStorage.setItem(REVIEWER, name)
  input.value = ""
  await load()
})
document.getElementById("refresh")?.addEventListener("click", load)
byId("signout").addEventListener("click", () => {
  signOut()
  status("Signed out", true)
})
if (sessionStorage.getItem(KEY)) void load()
