/**
 * The administrator console's script, served from the engine's origin so the CSP can forbid
 * inline script. The administrator token lives in this tab's sessionStorage only and goes out
 * as a bearer header to `/admin/api/*`; no cookie is set, so there is nothing to forge cross-site.
 */
import { api, byId, messageOf } from "./dom.ts"

const KEY = "signet-admin-token"

/** An RP as `GET /admin/api/relying-parties` lists it. */
interface RpRow {
  readonly name: string
  readonly clientId: string
  readonly status: string
  readonly plan?: string | null
  readonly requestedPlan?: string | null
  readonly kycVerified: boolean
  readonly usage: { readonly signaturesToday: number; readonly signaturesPerDay: number }
}

function status(text: string, ok: boolean) {
  const el = byId("result")
  el.textContent = text
  el.className = ok ? "ok" : "err"
}

async function call<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${api}/admin/api${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${sessionStorage.getItem(KEY)}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const data = (await res.json()) as T & { error?: string }
  if (res.status === 401) signOut()
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`)
  return data
}

function cell(row: HTMLTableRowElement, text: string, cls?: string) {
  const td = document.createElement("td")
  td.textContent = text
  if (cls) td.className = cls
  row.appendChild(td)
  return td
}

/** Each command the console offers, and the statuses it applies to. */
const MOVES: Record<string, ReadonlyArray<string>> = { Approve: ["pending", "rejected", "suspended"], Reject: ["pending"], Suspend: ["approved"] }

function render(rps: ReadonlyArray<RpRow>) {
  const body = byId<HTMLTableElement>("rps").tBodies[0]
  if (body === undefined) return
  body.replaceChildren()
  for (const rp of rps) {
    const row = document.createElement("tr")
    row.dataset["clientId"] = rp.clientId
    cell(row, rp.name)
    cell(row, rp.clientId, "mono")
    cell(row, rp.status, `status status-${rp.status}`)
    cell(row, (rp.plan || "none") + (rp.requestedPlan && rp.requestedPlan !== rp.plan ? ` (asked: ${rp.requestedPlan})` : ""))
    cell(row, rp.kycVerified ? "verified" : "not verified", "kyc")
    cell(row, `${rp.usage.signaturesToday} / ${rp.usage.signaturesPerDay}`, "usage")
    const actions = cell(row, "")
    for (const [move, from] of Object.entries(MOVES)) {
      if (!from.includes(rp.status)) continue
      const b = document.createElement("button")
      b.type = "button"
      b.textContent = move
      b.addEventListener("click", async () => {
        b.disabled = true
        try {
          const updated = await call<RpRow>(`/relying-parties/${encodeURIComponent(rp.clientId)}/commands`, { _tag: move })
          status(`${updated.name} is ${updated.status}`, true)
        } catch (e) {
          status(messageOf(e), false)
        }
        await load()
      })
      actions.appendChild(b)
    }
    body.appendChild(row)
  }
  byId("count").textContent = `${rps.length} relying part${rps.length === 1 ? "y" : "ies"}`
}

async function load() {
  try {
    render(await call<ReadonlyArray<RpRow>>("/relying-parties"))
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

byId("login").addEventListener("submit", async (ev) => {
  ev.preventDefault()
  const input = byId<HTMLInputElement>("token")
  sessionStorage.setItem(KEY, input.value.trim())
  input.value = ""
  await load()
})
byId("refresh").addEventListener("click", load)
byId("signout").addEventListener("click", () => {
  signOut()
  status("Signed out", true)
})
if (sessionStorage.getItem(KEY)) void load()
