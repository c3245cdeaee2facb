// The dashboard's graph view (`t`): the selected daemon's dependencies as `supervisor graph`
// draws them (the same model and text tree, src/domain/DependencyGraph.ts and graphFormats.ts),
// read from the configuration of the daemon's file, with each daemon's status now.
import { Effect, Either } from "effect"
import { Box, Text } from "ink"
import { createElement as h, useEffect, useState } from "react"
import { isRemote } from "../cli/remote.js"
import { configGraph } from "../domain/DependencyGraph.js"
import { graphText } from "../domain/graphFormats.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { configAt } from "./connection.js"
import type { Row } from "./model.js"

type Loaded =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "Failed"; readonly error: string }
  | { readonly _tag: "Loaded"; readonly config: ResolvedConfig }

/**
 * The lines the view shows of `row`'s daemon: its dependency tree, or why there is none; the
 * configuration `config` is the one of the daemon's file.
 */
export const graphLines = (
  row: Pick<Row, "id" | "daemon" | "source">,
  config: Pick<ResolvedConfig, "daemons">,
  statusOf: (id: string) => string,
): ReadonlyArray<string> => {
  if (config.daemons[row.daemon] === undefined)
    return [`${row.daemon} is no longer configured in ${row.source}`]
  const g = configGraph(config, statusOf, [row.daemon])
  const tree = graphText(g).split("\n")
  return g.edges.length === 0 ? [...tree, "", `${row.daemon} depends on no other daemon`] : tree
}

/** The graph view: a title, the tree (cut to `height`), and how to leave. */
export const GraphScreen = ({
  row,
  statusOf,
  height,
}: {
  readonly row: Row | undefined
  readonly statusOf: (id: string) => string
  readonly height: number
}) => {
  const [loaded, setLoaded] = useState<Loaded>({ _tag: "Loading" })
  // against a supervisor at a URL the daemon's file is on its machine, not this one
  const remote = isRemote()
  const source = row?.source ?? null
  useEffect(() => {
    setLoaded({ _tag: "Loading" })
    if (source === null || remote) return
    let live = true
    void Effect.runPromise(Effect.either(configAt(source))).then((r) => {
      if (live)
        setLoaded(Either.isRight(r) ? { _tag: "Loaded", config: r.right } : { _tag: "Failed", error: r.left })
    })
    return () => {
      live = false
    }
  }, [source, remote])
  const lines =
    row === undefined
      ? ["no daemon selected"]
      : row.source === null
        ? [
            `${row.id} runs without a configuration file (\`supervisor run\`): it has no configured dependencies`,
          ]
        : remote
          ? [
              `${row.source} is on the supervisor's machine (--url): \`supervisor graph ${row.daemon}\` there draws this view`,
            ]
          : loaded._tag === "Loading"
            ? ["reading the configuration…"]
            : loaded._tag === "Failed"
              ? [`the configuration of ${row.source} cannot be read:`, ...loaded.error.split("\n")]
              : graphLines(row, loaded.config, statusOf)
  return h(
    Box,
    { flexDirection: "column", height },
    h(Text, { bold: true, wrap: "truncate-end" }, `Dependencies of ${row?.daemon ?? "(none)"}`),
    ...lines
      .slice(0, Math.max(0, height - 1))
      .map((l, i) => h(Text, { key: `g${i}`, wrap: "truncate-end" }, l === "" ? " " : l)),
  )
}
