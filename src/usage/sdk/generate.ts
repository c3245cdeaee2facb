import type { Spec } from "../model.js"
import { generatePythonSdk } from "./python/render.js"
import { generateTypeScriptSdk } from "./typescript/render.js"

/** The SDK languages a usage spec can be generated into. */
export type SdkLanguage = "typescript" | "python"

/**
 * The files of an SDK for `spec`, by path relative to the SDK's directory (a TypeScript module
 * directory with `index.ts`, or a Python package directory with `__init__.py`; the caller picks
 * its name). Pure and deterministic: the same spec gives the same bytes, so generated SDKs can be
 * checked in and diffed.
 */
export const generateSdk = (spec: Spec, lang: SdkLanguage): ReadonlyMap<string, string> =>
  lang === "typescript" ? generateTypeScriptSdk(spec) : generatePythonSdk(spec)
