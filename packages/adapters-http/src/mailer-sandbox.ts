/** A `Mailer` that delivers nothing: it keeps messages in memory for tests and prints them for the demo. Sandbox engines only. */
import { type EngineConfig, type Environment, Mailer, type MailMessage, sandboxAdapter } from "@signet/core"
import { Effect, Layer } from "effect"

/** Thrown when a sandbox mailbox is made for a production engine. */
export class SandboxMailerInProduction extends Error {
  override readonly name = "SandboxMailerInProduction"
  constructor() {
    super(
      "the sandbox mailer keeps e-mails in memory and delivers none, so it cannot prove anyone's address: a production engine needs SMTP (set SIGNET_SMTP_URL, see docs/configuration.md)",
    )
  }
}

/** The sandbox mailbox: every message the engine sent, newest last. */
export class SandboxMailbox {
  private readonly messages: Array<MailMessage> = []

  /** Refuses to exist for a production engine; `onMessage` sees each message (the demo prints it). */
  constructor(
    environment: Environment,
    private readonly onMessage?: (message: MailMessage) => void,
  ) {
    if (environment !== "sandbox") throw new SandboxMailerInProduction()
  }

  /** The `Mailer` layer over this mailbox. */
  get layer(): Layer.Layer<Mailer, never, EngineConfig> {
    return sandboxAdapter(
      { port: "mailer", adapter: "sandbox mailbox (nothing delivered)", setting: "SIGNET_SMTP_URL" },
      Layer.succeed(
        Mailer,
        Mailer.of({
          send: (message) =>
            Effect.sync(() => {
              this.messages.push(message)
              this.onMessage?.(message)
            }),
        }),
      ),
    )
  }

  /** Messages to `to` (all when absent), oldest first. */
  sent(to?: string): ReadonlyArray<MailMessage> {
    return to === undefined ? [...this.messages] : this.messages.filter((m) => m.to === to.toLowerCase())
  }

  /** The verification code in the newest message to `to`; throws when there is none. */
  codeFor(to: string): string {
    const code = verificationCodeIn(this.sent(to).at(-1)?.text ?? "")
    if (code === undefined) throw new Error(`no verification e-mail to ${to} in the sandbox mailbox`)
    return code
  }
}

/** The one-time code in a verification e-mail's text. */
export const verificationCodeIn = (text: string): string | undefined => text.match(/verification code is (\d+)/)?.[1]
