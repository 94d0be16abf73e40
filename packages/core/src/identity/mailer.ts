/** Mailer port: sends the engine's e-mails (verification codes). The core composes them; an adapter delivers them. */
import { Context, type Effect } from "effect"
import type { MailUndeliverable } from "./errors.ts"

/** A plain-text e-mail from the engine. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** Delivers e-mails: SMTP in production, an in-memory sandbox mailbox in sandbox engines (adapters-http). */
export class Mailer extends Context.Tag("@signet/core/Mailer")<
  Mailer,
  {
    /** Hands the message to the mail system; fails when it refused or could not be reached. */
    readonly send: (message: MailMessage) => Effect.Effect<void, MailUndeliverable>
  }
>() {}
