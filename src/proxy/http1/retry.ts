import type { RequestHead } from "./head.js"

/** Methods whose repetition has the effect of one request (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"])

/**
 * Whether a request may be sent again on a new connection when the daemon closed a kept-alive
 * one without answering it (it may have closed it as idle just as the request arrived): an
 * idempotent request without a body, whose bytes the relay still has.
 */
export const replayable = (head: RequestHead): boolean => head.body === 0 && IDEMPOTENT.has(head.method)
