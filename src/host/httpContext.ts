import * as Etag from "@effect/platform/Etag"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodePath from "@effect/platform-node/NodePath"
import { Layer } from "effect"

/** The supervisor's platform services: the file system and paths, nothing of a terminal. */
export const filesAndPaths = Layer.merge(NodeFileSystem.layer, NodePath.layer)

/**
 * What the supervisor's HTTP servers need around them: `NodeHttpServer.layerContext` without the
 * rest of `NodeContext`. Its terminal opens stdin at once (a file stream for the supervisor's
 * /dev/null, which loads Node's promise-based file system and readline: ~0.6 MiB resident), and
 * its workers and command executor are not the supervisor's (docs/benchmarks.md).
 */
export const httpServerContext = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak).pipe(
  Layer.provideMerge(filesAndPaths),
)
