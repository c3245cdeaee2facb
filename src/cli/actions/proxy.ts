// `supervisor proxy add|remove|status`: slugs in the user's configuration, edited in place, and
// what the proxy would serve (the daemons' status and ports from a running supervisor).
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Console, Effect, Either, Option, Schema } from "effect"
import { type ConfigLocation, userConfigDir } from "../../config/discover.js"
import {
  checkEdit,
  DaemonEditRefused,
  projectDir,
  readText,
  writeAtomic,
} from "../../config/edit/daemonFile.js"
import { addSlug, declaredSlugs, removeSlug } from "../../config/edit/slugsEdit.js"
import { defaultLoadOptions, type LoadOptions, loadConfig } from "../../config/Loader.js"
import { UsageError } from "../../control/selection.js"
import type { ProxyEntry } from "../../domain/ApiNamespaces.js"
import { nameProblem } from "../../domain/Name.js"
import { ProxyStatus } from "../../domain/ProxyStatus.js"
import { effectiveProxy, slugUrl } from "../../domain/proxyUrl.js"
import { Settings } from "../../domain/Settings.js"
import { projectRootOf, slugProblem } from "../../domain/slugs.js"
import { closest } from "../../domain/suggest.js"
import { caTrusted } from "../../proxy/tls/trust.js"
import { stateDir, statePaths } from "../../state/paths.js"
import type { ProxyAddOptions } from "../args/proxy.js"
import { isUp, SupervisorClient, supervisorClientLayer } from "../client.js"
import { cyan, dim, green, printJson, warn, yellow } from "../output.js"
import { handleErrors, loadHere } from "../session.js"
import { renderTable } from "../table.js"
import { currentProxyNeed } from "./proxyNeeds.js"

const usage = (message: string) => new UsageError({ message })
const homeOf = (options: LoadOptions) => options.home ?? (options.env.HOME || os.homedir())

/** The user's configuration file, where `[slugs]` lives. */
const userFile = (options: LoadOptions): ConfigLocation => {
  const dir = userConfigDir(options.env, homeOf(options))
  return { path: nodePath.join(dir, "config.toml"), level: "user", local: false, baseDir: dir }
}

/** The running supervisor's client (none is started for this), or none. */
const runningClient = <A>(f: Effect.Effect<A, unknown, SupervisorClient>) =>
  Effect.gen(function* () {
    if (!(yield* isUp(statePaths(stateDir(process.env)).socket))) return Option.none<A>()
    return yield* f.pipe(Effect.provide(supervisorClientLayer({ autoStart: false })), Effect.option)
  })

/** Warns when `daemon` is not configured in the project of `dir` (the slug is added all the same). */
const warnIfUnconfigured = (options: LoadOptions, dir: string, daemon: string) =>
  Effect.gen(function* () {
    const loaded = yield* Effect.either(loadConfig({ ...options, cwd: dir }))
    if (Either.isLeft(loaded))
      return yield* warn(
        `the configuration of ${dir} does not load (see \`supervisor config validate\` there)`,
      )
    const here = Object.values(loaded.right.daemons).filter((d) =>
      d.sources.some((s) => projectRootOf(s) === dir),
    )
    if (here.some((d) => d.id.name === daemon)) return
    const names = here.map((d) => d.id.name)
    yield* warn(
      `no daemon ${JSON.stringify(daemon)} is configured in ${dir}${
        names.length > 0 ? ` (configured there: ${names.join(", ")}; choose one with --daemon)` : ""
      }; the slug is kept and works once it is`,
    )
  })

/** `supervisor proxy add SLUG [--dir D] [--daemon NAME]`. */
export const add = (o: ProxyAddOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const problem = slugProblem(o.slug)
      if (problem) return yield* usage(`invalid slug ${JSON.stringify(o.slug)}: ${problem}`)
      const options = defaultLoadOptions()
      const given = Option.getOrElse(o.dir, () => options.cwd)
      const abs = nodePath.resolve(options.cwd, given)
      if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory())
        return yield* usage(`--dir ${given}: no such directory`)
      const dir = projectDir(abs)
      const daemon = Option.getOrElse(o.daemon, () => o.slug)
      const nameError = nameProblem(daemon)
      if (nameError) return yield* usage(`invalid daemon name ${JSON.stringify(daemon)}: ${nameError}`)
      const location = userFile(options)
      const file = location.path
      const before = yield* readText(file)
      const edited = addSlug(location, before, homeOf(options), o.slug, { dir, daemon })
      if (edited._tag === "Refused")
        return yield* new DaemonEditRefused({
          file,
          key: `slugs.${o.slug}`,
          problem: edited.problem,
          ...(edited.hint === undefined ? {} : { hint: edited.hint }),
        })
      // the address as the settings in force say (the defaults when the files do not load)
      const loaded = yield* Effect.either(loadConfig(options))
      const settings = Either.isRight(loaded) ? loaded.right.settings : Schema.decodeSync(Settings)({})
      const url = slugUrl(o.slug, effectiveProxy(settings))
      if (edited._tag === "Added") {
        yield* checkEdit(options, file, fs.existsSync(file) ? before : undefined, edited.text)
        yield* writeAtomic(file, edited.text)
        yield* Console.log(`${green("added")} ${o.slug} → ${daemon} in ${dir} ${dim(`(${url}; in ${file})`)}`)
      } else yield* Console.log(`${o.slug} → ${daemon} in ${dir} ${dim(`(${url}; already in ${file})`)}`)
      yield* warnIfUnconfigured(options, dir, daemon)
      const need = yield* currentProxyNeed()
      if (need !== undefined) yield* Console.error(`${yellow("note:")} ${need}`)
      // the supervisor learns the project now (none is started just for this)
      const registered = yield* runningClient(
        Effect.flatMap(SupervisorClient, (c) => c.api.daemons.registerNamespace({ payload: { dir } })),
      )
      if (Option.isSome(registered) && !registered.value.ok)
        yield* warn(`the supervisor could not register ${dir}: ${registered.value.error ?? "unknown error"}`)
    }),
  )

/** `supervisor proxy remove SLUG` (`rm`). */
export const remove = (slug: string) =>
  handleErrors(
    Effect.gen(function* () {
      const options = defaultLoadOptions()
      const location = userFile(options)
      const file = location.path
      const before = yield* readText(file)
      const edited = removeSlug(before, slug)
      if ("problem" in edited) {
        if (edited.problem.kind === "syntax")
          return yield* new DaemonEditRefused({ file, problem: edited.problem.message })
        const names = Object.keys(declaredSlugs(location, before, homeOf(options)))
        const near = closest(slug, names)
        return yield* new DaemonEditRefused({
          file,
          key: `slugs.${slug}`,
          problem: `no slug ${JSON.stringify(slug)}`,
          hint:
            near !== undefined
              ? `did you mean ${near}? (slugs: ${names.join(", ")})`
              : names.length > 0
                ? `the slugs are: ${names.join(", ")}`
                : "there are no slugs: add one with `supervisor proxy add SLUG`",
        })
      }
      yield* writeAtomic(file, edited.text)
      yield* Console.log(`${green("removed")} ${slug} ${dim(`from ${file}`)}`)
    }),
  )

/** `supervisor proxy status [--json]`. */
export const status = (json: boolean) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      const proxy = effectiveProxy(config.settings)
      const caPath = nodePath.join(stateDir(process.env), "proxy", "ca.pem")
      const known = yield* runningClient(Effect.flatMap(SupervisorClient, (c) => c.api.daemons.proxies()))
      const bySlug = new Map<string, ProxyEntry>(
        Option.getOrElse(known, () => []).map((p) => [p.slug, p] as const),
      )
      const out: ProxyStatus = {
        enabled: proxy.enable,
        scheme: proxy.https ? "https" : "http",
        host: proxy.host,
        port: proxy.port,
        tld: proxy.tld,
        ca_path: caPath,
        ca_exists: fs.existsSync(caPath),
        ca_trusted: caTrusted(stateDir(process.env)),
        supervisor_running: Option.isSome(known),
        slugs: Object.keys(config.slugs)
          .sort()
          .map((slug) => {
            const s = config.slugs[slug]!
            const p = bySlug.get(slug)
            return {
              slug,
              url: slugUrl(slug, proxy),
              dir: s.dir,
              daemon: s.daemon,
              daemon_id: p?.daemon_id ?? null,
              status: p?.status ?? "unknown",
              port: p?.port ?? null,
            }
          }),
      }
      if (json) return yield* printJson(ProxyStatus, out)
      // pitchfork's lines (`Proxy: enabled`, `  Scheme:`, `  TLD:`, `  Port:`), then ours
      const onOff = out.enabled
        ? green("enabled")
        : `${yellow("disabled")} ${dim("(supervisor settings set proxy.enable true --global)")}`
      const trusted =
        out.ca_trusted === null
          ? "unknown"
          : out.ca_trusted
            ? "yes"
            : `no ${dim("(run: supervisor proxy trust)")}`
      yield* Console.log(
        [
          `Proxy: ${onOff}`,
          `  Scheme:  ${out.scheme}`,
          `  TLD:     ${out.tld}`,
          `  Port:    ${out.port}`,
          `  Listen:  ${out.host}:${out.port}`,
          `  CA:      ${out.ca_path} ${dim(out.ca_exists ? "(exists)" : "(not created yet)")}`,
          `  Trusted: ${trusted}`,
        ].join("\n"),
      )
      const need = yield* currentProxyNeed()
      if (need !== undefined) yield* Console.log(`\n${yellow("note:")} ${need}`)
      if (out.slugs.length === 0)
        return yield* Console.log(dim("\nno slugs: add one with `supervisor proxy add SLUG` in a project"))
      if (!out.supervisor_running) yield* Console.log(dim("\nthe supervisor is not running: status unknown"))
      yield* Console.log(
        `\n${renderTable(
          ["SLUG", "URL", "DAEMON", "STATUS", "PORT", "DIR"],
          out.slugs.map((s) => [
            cyan(s.slug),
            s.url,
            s.daemon_id ?? s.daemon,
            s.status,
            s.port === null ? "-" : String(s.port),
            s.dir,
          ]),
        )}`,
      )
    }),
  )
