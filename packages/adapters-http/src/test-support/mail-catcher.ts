/** Test support: a real SMTP server (the `smtp-server` package) on 127.0.0.1 that keeps what it receives. */
import { SMTPServer } from "smtp-server"
import { verificationCodeIn } from "../mailer-sandbox.ts"

/** One message as the server received it. */
export interface CaughtMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  /** the whole message (headers and body) as sent over the wire */
  readonly raw: string
  /** the user the client authenticated as, if it did */
  readonly user: string | undefined
}

/** A started catcher: its SMTP URL (with the credentials it accepts), what it caught, and its shutdown. */
export interface MailCatcher {
  readonly url: string
  readonly caught: ReadonlyArray<CaughtMail>
  /** the code of the newest verification e-mail to `to` (waits briefly for it) */
  readonly codeFor: (to: string) => Promise<string>
  readonly close: () => Promise<void>
}

/** Starts the server on a free loopback port; it accepts only `user`/`pass` (PLAIN or LOGIN, without TLS: loopback only). */
export const startMailCatcher = async (
  credentials: { readonly user: string; readonly pass: string } = { user: "signet", pass: "s3cret" },
): Promise<MailCatcher> => {
  const caught: Array<CaughtMail> = []
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth: (auth, _session, callback) => {
      if (auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username })
      else callback(new Error("Invalid username or password"))
    },
    onData: (stream, session, callback) => {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        caught.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: typeof session.user === "string" ? session.user : undefined,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.server.address() as { port: number }).port
  return {
    url: `smtp://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@127.0.0.1:${port}`,
    caught,
    codeFor: async (to) => {
      for (let i = 0; i < 50; i++) {
        const mail = caught.findLast((m) => m.to.includes(to.toLowerCase()))
        const code = mail === undefined ? undefined : verificationCodeIn(mail.raw)
        if (code !== undefined) return code
        await new Promise((r) => setTimeout(r, 20))
      }
      throw new Error(`no verification e-mail to ${to} reached the SMTP server`)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
