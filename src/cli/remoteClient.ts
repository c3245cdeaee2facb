// The CLI's client of a supervisor at a URL (src/cli/remote.ts): the same typed API as over the
// Unix socket, sent to the URL with the token, HTTPS verified against the system's CAs plus the
// `--ca` file; failures to connect, verify or authenticate said in one line each.
import * as tls from "node:tls"
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Context, Data, Effect, Layer } from "effect"
import { Api } from "../api/Api.js"
import { CLI_HEADER, NOTICES_HEADER, printNotices } from "../domain/cliNotices.js"
import { VERSION } from "../domain/version.js"
import { type RemoteTarget, remoteTarget } from "./remote.js"

/** The supervisor at the URL cannot be used: unreachable, unverifiable, or it refused the token. */
export class RemoteFailed extends Data.TaggedError("RemoteFailed")<{ readonly message: string }> {}

/** The base URL the CLI's requests are written against (the socket's); replaced by the target's. */
const LOCAL_BASE = "http://localhost"

const TLS_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
])

/** The Node error under an HttpClient failure (a RequestError's cause), if any. */
const nodeError = (e: unknown): NodeJS.ErrnoException | undefined => {
  let cause: unknown = e
  for (let i = 0; i < 4 && typeof cause === "object" && cause !== null; i++) {
    if ("code" in cause && typeof cause.code === "string") return cause as NodeJS.ErrnoException
    cause = "cause" in cause ? cause.cause : undefined
  }
  return undefined
}

const statusOf = (e: unknown): number | undefined => {
  if (typeof e !== "object" || e === null) return undefined
  const response = "response" in e ? (e.response as { status?: unknown } | undefined) : undefined
  return typeof response?.status === "number" ? response.status : undefined
}

/** One line saying why the first request to `target` failed, and what to do. */
export const describeFailure = (target: RemoteTarget, e: unknown): string => {
  const at = `the supervisor at ${target.url}`
  const status = statusOf(e)
  if (status === 401)
    return `${at} refused the token (401): check SUPERVISOR_API_TOKEN (or --token-file); \`supervisor supervisor token\` on its machine prints it`
  if (status === 403)
    return `${at} refused the request (403): reach it by its bind address or its host name, the names its listener answers to`
  if (status === 404)
    return `${at} does not serve the CLI's routes (404): point --url at its API listener (settings.api), of a supervisor that serves a remote CLI`
  if (status !== undefined) return `${at} answered HTTP ${status}: check --url`
  const error = nodeError(e)
  const code = error?.code ?? ""
  const detail = error?.message ?? String(e)
  if (TLS_CODES.has(code))
    return `cannot verify the certificate of ${at} (${code}): give its CA with --ca FILE (SUPERVISOR_CA), a copy of <state dir>/proxy/ca.pem from its machine${target.caFile === undefined ? "" : `; ${target.caFile} did not sign it`}`
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return `the certificate of ${at} does not name ${new URL(target.url).hostname}: use the address or host name it names in --url (${detail})`
  if (code === "EPROTO" || /wrong version number|packet length too long/i.test(detail))
    return `${at} did not answer in TLS (${code || detail}): use http:// for a listener without settings.api.tls, https:// with it`
  if (code === "ECONNRESET" && target.url.startsWith("http:"))
    return `${at} closed the connection: if its listener serves HTTPS (settings.api.tls), use https://`
  return `cannot reach ${at}: ${detail}; check the address, and that its API listener is on (settings.api.auto_start)`
}

const isLoopbackHost = (host: string) =>
  host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/**
 * The client of the supervisor at the URL of `env` (SUPERVISOR_URL, which `--url` sets), checked
 * with a first request (its version); never starts a supervisor. Runs in the caller's scope.
 */
export const remoteClient = (env: NodeJS.ProcessEnv, checkVersion: boolean) =>
  Effect.gen(function* () {
    const target = yield* remoteTarget(env)
    const url = new URL(target.url)
    if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
      process.stderr.write(
        `warning: ${target.url} is plain HTTP on another host: the token travels unencrypted; serve the API over HTTPS (settings.api.tls) or forward it over SSH\n`,
      )
    // the system's CAs and the given one (Node's `ca` replaces the defaults: both are given)
    const agent = NodeHttpClient.makeAgentLayer({
      keepAlive: true,
      ...(target.ca === undefined ? {} : { ca: [...tls.rootCertificates, target.ca] }),
    })
    const transport = yield* Layer.build(NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(agent)))
    const http = Context.get(transport, HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.url.startsWith(LOCAL_BASE)
          ? HttpClientRequest.setUrl(request, `${target.url}${request.url.slice(LOCAL_BASE.length)}`)
          : request,
      ),
      HttpClient.mapRequest(
        HttpClientRequest.setHeaders({ "X-Supervisor-Token": target.token, [CLI_HEADER]: "1" }),
      ),
      HttpClient.tap((response) => Effect.sync(() => printNotices(response.headers[NOTICES_HEADER]))),
    )
    // the typed client prepends its base URL after `http`'s own mapping: it gets the target's
    const api = yield* HttpApiClient.make(Api, { baseUrl: target.url }).pipe(
      Effect.provideService(HttpClient.HttpClient, http),
    )
    // no `cwd`: this machine's directories mean nothing to it
    const info = yield* api.cli
      .info({ urlParams: {} })
      .pipe(Effect.mapError((e) => new RemoteFailed({ message: describeFailure(target, e) })))
    if (info.version !== VERSION && checkVersion)
      return yield* new RemoteFailed({
        message: `the supervisor at ${target.url} is version ${info.version} but this CLI is ${VERSION}; use a CLI of its version`,
      })
    return { api, http, socket: target.url }
  })
