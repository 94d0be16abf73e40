/** The `Mailer` over SMTP (nodemailer): how a production engine proves e-mail addresses. */
import { declareAdapter, Mailer, MailUndeliverable } from "@signet/core"
import { Effect, Layer } from "effect"
import { createTransport } from "nodemailer"

/** Where and as whom the engine sends mail. */
export interface SmtpSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465` (TLS from the start) */
  readonly url: string
  /** the From address, e.g. `Signet <no-reply@signet.example>` */
  readonly from: string
  /** give up on a connection, greeting or command after this long (default 10 s), so a dead relay cannot hold requests */
  readonly timeoutMs?: number
  /** insist on TLS for `smtp://` (default: only when the URL carries credentials, so they never cross in the clear) */
  readonly requireTls?: boolean
}

/** A `Mailer` layer that hands each message to one SMTP relay; the transport is closed with the engine. */
export const MailerSmtp = (settings: SmtpSettings): Layer.Layer<Mailer> =>
  declareAdapter(
    { port: "mailer", adapter: `SMTP ${new URL(settings.url).host}`, setting: "SIGNET_SMTP_URL" },
    Layer.scoped(
      Mailer,
      Effect.gen(function* () {
        const url = new URL(settings.url)
        const timeout = settings.timeoutMs ?? 10_000
        const transport = yield* Effect.acquireRelease(
          Effect.sync(() =>
            createTransport({
              host: url.hostname.replace(/^\[|\]$/g, ""),
              port: url.port === "" ? (url.protocol === "smtps:" ? 465 : 587) : Number(url.port),
              secure: url.protocol === "smtps:",
              requireTLS: settings.requireTls ?? (url.protocol === "smtp:" && url.username !== ""),
              ...(url.username !== "" ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
              connectionTimeout: timeout,
              greetingTimeout: timeout,
              socketTimeout: timeout,
            }),
          ),
          (t) => Effect.sync(() => t.close()),
        )
        return Mailer.of({
          send: (message) =>
            Effect.tryPromise({
              try: () => transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text }),
              // The relay's own words can name hosts and users: the answer only says which stage failed.
              catch: (e) => new MailUndeliverable({ detail: smtpStage(e) }),
            }).pipe(Effect.asVoid),
        })
      }),
    ),
  )

const smtpStage = (e: unknown): string => {
  const code = typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : ""
  if (code === "EENVELOPE") return "the mail server refused the recipient"
  if (code === "EAUTH") return "the mail server refused the engine's credentials"
  if (code === "ETIMEDOUT" || code === "ECONNECTION" || code === "ESOCKET" || code === "EDNS") return "the mail server could not be reached"
  return "the mail server refused the message"
}
