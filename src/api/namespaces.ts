import { Effect } from "effect"
import type { ProjectRegistryShape } from "../registry/ProjectRegistry.js"

// `POST /api/namespaces` and `DELETE /api/namespaces/{namespace}`: a project directory is
// registered under its namespace (the one its supervisor.toml gives, as the CLI sees it from
// that directory), or forgotten. The listing is the Namespaces command's (control/namespaces.ts).

export const registerNamespace = (projects: ProjectRegistryShape, dir: string) =>
  projects.register(dir).pipe(
    Effect.match({
      onFailure: (error) => ({ ok: false, error: error.message }),
      onSuccess: (namespace) => ({ ok: true, namespace }),
    }),
  )

export const removeNamespace = (projects: ProjectRegistryShape, name: string) =>
  projects.forget(name).pipe(
    Effect.match({
      onFailure: (error) => ({ ok: false, error: error.message }),
      onSuccess: (namespace) => ({ ok: true, namespace }),
    }),
  )
