// A slug typed where a daemon ID goes, resolved from the CLI's own environment.
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect } from "effect"
import { loadConfig } from "../config/Loader.js"
import { withSlugProjects as withProjects } from "../config/slugProjects.js"
import { gitWorktreeDir } from "../config/worktree.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

/** `config` with the daemons of each project a typed slug points to (src/config/slugProjects.ts). */
export const withSlugProjects = (config: ResolvedConfig, ids: ReadonlyArray<string>) =>
  withProjects(
    config,
    ids,
    (dir) => loadConfig({ cwd: dir, env: process.env }),
    (main, label) => gitWorktreeDir(main, label).pipe(Effect.provide(NodeFileSystem.layer)),
  )
