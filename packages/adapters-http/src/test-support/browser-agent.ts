/**
 * Test support: a browser without a browser. Plain HTTP with a cookie jar per host, redirects
 * followed by hand (so each hop can be inspected or stopped at) and forms submitted as a
 * browser would. Cookie attributes other than Max-Age=0 are ignored: every test server is loopback.
 */

/** One answer as the agent saw it. */
export interface Page {
  readonly url: URL
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** A cookie-keeping HTTP agent that follows redirects one hop at a time. */
export class BrowserAgent {
  readonly #jars = new Map<string, Map<string, string>>()

  /** The cookies the agent holds for `origin` (host and port). */
  cookies(origin: string): Map<string, string> {
    const host = new URL(origin).host
    let jar = this.#jars.get(host)
    if (jar === undefined) {
      jar = new Map()
      this.#jars.set(host, jar)
    }
    return jar
  }

  /** One request, no redirect following; cookies sent and stored. */
  async request(
    url: string | URL,
    init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url)
    const jar = this.cookies(target.origin)
    const headers: Record<string, string> = { ...init.headers }
    if (jar.size > 0) headers["cookie"] = [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
    let body: string | undefined
    if (init.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded"
      body = new URLSearchParams(init.form).toString()
    } else if (init.json !== undefined) {
      headers["content-type"] = "application/json"
      body = JSON.stringify(init.json)
    }
    const response = await fetch(target, {
      method: init.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      redirect: "manual",
      ...(body !== undefined ? { body } : {}),
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";")
      const eq = pair!.indexOf("=")
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const gone = value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (gone) jar.delete(name)
      else jar.set(name, value)
    }
    return { url: target, status: response.status, headers: response.headers, text: await response.text() }
  }

  /** Follows redirects from `url` until an answer that is not one, or until `stopAt` says so (that hop is not requested). */
  async follow(url: string | URL, options: { stopAt?: (next: URL) => boolean; first?: Page } = {}): Promise<Page> {
    let page = options.first ?? (await this.request(url))
    for (let hops = 0; REDIRECTS.has(page.status); hops++) {
      if (hops > 20) throw new Error("too many redirects")
      const next = new URL(page.headers.get("location")!, page.url)
      if (options.stopAt?.(next)) return { ...page, url: next }
      page = await this.request(next)
    }
    return page
  }

  /** Submits the page's first form with its hidden fields plus `fields`, then follows redirects. */
  async submit(page: Page, fields: Record<string, string> = {}, options: { stopAt?: (next: URL) => boolean } = {}): Promise<Page> {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text)
    if (form === null) throw new Error(`no form on ${page.url}: ${page.text.slice(0, 300)}`)
    const values: Record<string, string> = {}
    for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1]
      if (name !== undefined) values[name] = /value="([^"]*)"/.exec(input[0])?.[1] ?? ""
    }
    const action = new URL(form[1]!.replace(/&amp;/g, "&"), page.url)
    return this.follow(action, { ...options, first: await this.request(action, { form: { ...values, ...fields } }) })
  }
}
