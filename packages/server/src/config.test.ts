import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ConfigError, defaultDatabasePool, loadConfig } from "./config.ts"

const key = "ab".repeat(32)

describe("server configuration", () => {
  it("outside demo mode a missing master key is a clear start-up error", () => {
    expect(() => loadConfig({}, [])).toThrow(ConfigError)
    expect(() => loadConfig({}, [])).toThrow(/SIGNET_MASTER_KEY is not set/)
  })

  it("demo mode defaults to sandbox, SQLite under .signet and the /api mount", () => {
    const c = loadConfig({}, [], { demo: true })
    expect(c).toMatchObject({ demo: true, port: 3000, database: ".signet/demo.db" })
    expect(c.settings).toMatchObject({ environment: "sandbox", publicOrigin: "http://localhost:3000", basePath: "/api" })
  })

  it("environment variables set every field and production is the default environment", () => {
    const c = loadConfig(
      {
        SIGNET_MASTER_KEY: key,
        SIGNET_PORT: "8080",
        SIGNET_DATABASE: "postgres://db/signet",
        SIGNET_PUBLIC_ORIGIN: "https://signet.example.com/",
        SIGNET_BASE_PATH: "/signet",
        SIGNET_DEADLINE_MS: "5000",
      },
      [],
    )
    expect(c).toMatchObject({ port: 8080, database: "postgres://db/signet", deadlineMs: 5000, masterKey: key })
    expect(c.settings).toMatchObject({ environment: "production", publicOrigin: "https://signet.example.com", basePath: "/signet" })
  })

  it("SIGNET_WORKERS: one worker per core by default, a whole number from 1 on, one process for :memory:", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).workers).toBe(availableParallelism())
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_WORKERS: "3" }, []).workers).toBe(3)
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: ":memory:" }, []).workers).toBe(1)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_WORKERS: "0" }, [])).toThrow(/SIGNET_WORKERS must be a whole number from 1/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_WORKERS: "1.5" }, [])).toThrow(/invalid configuration/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_WORKERS: "2", SIGNET_DATABASE: ":memory:" }, [])).toThrow(/not :memory:/)
  })

  it("SIGNET_DATABASE_PREPARED_STATEMENTS: on by default on PostgreSQL, off when set false; refused on SQLite", () => {
    const pgUrl = "postgres://u@h/db"
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl }, []).databasePreparedStatements).toBe(true)
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl, SIGNET_DATABASE_PREPARED_STATEMENTS: "false" }, []).databasePreparedStatements).toBe(
      false,
    )
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).databasePreparedStatements).toBeUndefined()
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE_PREPARED_STATEMENTS: "false" }, [])).toThrow(/SQLite keeps its own/)
  })

  it("SIGNET_DATABASE_POOL: PostgreSQL connections per process, by default about two per core shared by the workers; refused on SQLite", () => {
    const pgUrl = "postgres://signet@db.example.com/signet"
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl, SIGNET_DATABASE_POOL: "7" }, []).databasePool).toBe(7)
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl, SIGNET_WORKERS: "1" }, []).databasePool).toBe(2 * availableParallelism() + 2)
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl }, []).databasePool).toBe(
      defaultDatabasePool(availableParallelism(), availableParallelism()),
    )
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).databasePool).toBeUndefined()
    // two per core plus two for the node, split among its workers, never under two each
    expect([defaultDatabasePool(2, 1), defaultDatabasePool(2, 2), defaultDatabasePool(32, 32), defaultDatabasePool(4, 64)]).toEqual([6, 3, 3, 2])
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE_POOL: "4" }, [])).toThrow(/SQLite has none/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl, SIGNET_DATABASE_POOL: "0" }, [])).toThrow(/from 1 to 1000/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_DATABASE: pgUrl, SIGNET_DATABASE_POOL: "ten" }, [])).toThrow(/invalid configuration/)
  })

  it("refuses an origin with a path, a bad environment and a bad port", () => {
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_PUBLIC_ORIGIN: "https://x.example/app" }, [])).toThrow(/must be an origin/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_ENVIRONMENT: "staging" }, [])).toThrow(/invalid configuration/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_PORT: "eighty" }, [])).toThrow(/invalid configuration/)
  })

  it("chooses sandbox or local per KYC port: sandbox by default in a sandbox engine, none (KYC disabled) in production, local by environment variable, anything else refused", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_ENVIRONMENT: "sandbox" }, []).kyc).toEqual({
      documentReader: "sandbox",
      faceMatcher: "sandbox",
      liveness: "sandbox",
    })
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).kyc).toBeNull()
    const c = loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_KYC_DOCUMENT_READER: "local", SIGNET_KYC_LIVENESS: "local" }, [])
    expect(c.kyc).toEqual({ documentReader: "local", faceMatcher: "sandbox", liveness: "local" })
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_KYC_FACE_MATCHER: "cloud" }, [])).toThrow(/invalid configuration/)
  })

  it("SIGNET_TRUSTED_PROXIES takes addresses and CIDRs; anything else is refused naming the entry", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).trustedProxies).toEqual([])
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1,::1" }, []).trustedProxies).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "::1",
    ])
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" }, [])).toThrow(
      /SIGNET_TRUSTED_PROXIES: trusted proxy entry "proxy.internal" is not an IP address or CIDR range/,
    )
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUSTED_PROXIES: "10.0.0.0/33" }, [])).toThrow(/SIGNET_TRUSTED_PROXIES/)
  })

  it("SIGNET_SMTP_URL names the mail relay (From defaults to no-reply at the public host); none leaves the sandbox mailbox; a non-SMTP URL is refused", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).smtp).toBeUndefined()
    expect(
      loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_PUBLIC_ORIGIN: "https://signet.example.com", SIGNET_SMTP_URL: "smtps://u:p@smtp.example.com" }, []).smtp,
    ).toEqual({ url: "smtps://u:p@smtp.example.com", from: "Signet <no-reply@signet.example.com>" })
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_SMTP_URL: "smtp://relay:25", SIGNET_MAIL_FROM: "ID <id@x.example>" }, []).smtp?.from).toBe(
      "ID <id@x.example>",
    )
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_SMTP_URL: "https://mail.example" }, [])).toThrow(/SIGNET_SMTP_URL must be smtp:/)
  })

  it("SIGNET_TSA_URL names an external timestamp authority; the built-in one otherwise; a non-URL is refused", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).tsaUrl).toBeUndefined()
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TSA_URL: "https://tsa.example.com/tsr" }, []).tsaUrl).toBe("https://tsa.example.com/tsr")
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TSA_URL: "tsa.example.com" }, [])).toThrow(/tsaUrl tsa.example.com must be an http\(s\) URL/)
  })

  it("SIGNET_TRUST_ANCHORS names a PEM bundle: its certificates are trusted besides the engine's root; an unreadable file or one without a certificate is refused", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).trustAnchors).toEqual([])
    const dir = mkdtempSync(join(tmpdir(), "signet-anchors-"))
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        "/CN=Other CA",
        "-keyout",
        join(dir, "k.pem"),
        "-out",
        join(dir, "ca.pem"),
      ],
      { stdio: "pipe" },
    )
    const bundle = join(dir, "bundle.pem")
    writeFileSync(bundle, `# other CAs\n${readFileSync(join(dir, "ca.pem"), "utf8")}${readFileSync(join(dir, "ca.pem"), "utf8")}`)
    const anchors = loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUST_ANCHORS: bundle }, []).trustAnchors
    expect(anchors).toHaveLength(2)
    const der = execFileSync("openssl", ["x509", "-in", join(dir, "ca.pem"), "-outform", "DER"])
    expect(Buffer.from(anchors[0]!).equals(der)).toBe(true)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUST_ANCHORS: join(dir, "missing.pem") }, [])).toThrow(/SIGNET_TRUST_ANCHORS: cannot read/)
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_TRUST_ANCHORS: join(dir, "k.pem") }, [])).toThrow(/holds no PEM CERTIFICATE block/)
  })

  it("SIGNET_OTEL_ENDPOINT: the collector's http(s) base URL, or nothing exported", () => {
    expect(loadConfig({ SIGNET_MASTER_KEY: key }, []).otelEndpoint).toBeUndefined()
    expect(loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_OTEL_ENDPOINT: "http://otel:4318" }, []).otelEndpoint).toBe("http://otel:4318")
    expect(() => loadConfig({ SIGNET_MASTER_KEY: key, SIGNET_OTEL_ENDPOINT: "otel:4318" }, [])).toThrow(/SIGNET_OTEL_ENDPOINT must be/)
  })
})
