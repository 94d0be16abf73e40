/** Errors every capability may answer: request shape, routing, generic lookups and configuration. */
import { Schema } from "effect"

/** HTTP status carried by every catalogued error. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503

/** 410: the operation (or ceremony) is unknown, already used or past its lifetime. */
export class OperationExpired extends Schema.TaggedError<OperationExpired>()("OperationExpired", {}) {
  readonly status = 410 as const
  override get message() {
    return "Operation expired or not found"
  }
}

/** 400: a required field is missing or has the wrong format; `detail` names it. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", { detail: Schema.String }) {
  readonly status = 400 as const
  override get message() {
    return this.detail
  }
}

/** 400: the body is not parseable JSON. */
export class MalformedJson extends Schema.TaggedError<MalformedJson>()("MalformedJson", { detail: Schema.String }) {
  readonly status = 400 as const
  override get message() {
    return `Malformed JSON body: ${this.detail}`
  }
}

/** 415: a body with a content type the endpoint does not take. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", { expected: Schema.String }) {
  readonly status = 415 as const
  override get message() {
    return `Unsupported content type; expected ${this.expected}`
  }
}

/** 413: a body above the endpoint's limit (base64 expansion included). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { limit: Schema.Number }) {
  readonly status = 413 as const
  override get message() {
    return `Request body too large; the limit is ${this.limit} bytes`
  }
}

/** 408: the server's processing deadline passed; the operation's state tells whether it took effect. */
export class ProcessingDeadlineExceeded extends Schema.TaggedError<ProcessingDeadlineExceeded>()("ProcessingDeadlineExceeded", {}) {
  readonly status = 408 as const
  override get message() {
    return "Processing deadline exceeded; read the operation state before retrying"
  }
}

/** 404: no route, or a resource the caller may not see. */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", { what: Schema.String }) {
  readonly status = 404 as const
  override get message() {
    return `${this.what} not found`
  }
}

/** 503: a feature whose adapter this server was started without (production KYC, currency conversion). */
export class NotConfigured extends Schema.TaggedError<NotConfigured>()("NotConfigured", { feature: Schema.String }) {
  readonly status = 503 as const
  override get message() {
    return `${this.feature} is not configured on this server`
  }
}

/** 405: the path exists but not with this method. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", { method: Schema.String }) {
  readonly status = 405 as const
  override get message() {
    return `Method ${this.method} not allowed`
  }
}

/** 409: a unique identifier (e-mail, client id, key id) is already taken. */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", { what: Schema.String }) {
  readonly status = 409 as const
  override get message() {
    return `${this.what} already exists`
  }
}

/** The catalogued errors of this module (the catalogue is the union of every module's list). */
export const commonErrors = [
  OperationExpired,
  InvalidRequest,
  MalformedJson,
  UnsupportedMediaType,
  PayloadTooLarge,
  ProcessingDeadlineExceeded,
  ResourceNotFound,
  NotConfigured,
  MethodNotAllowed,
  AlreadyExists,
] as const
/** An error of this module. */
export type CommonError = InstanceType<(typeof commonErrors)[number]>
