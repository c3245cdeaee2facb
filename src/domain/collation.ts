// `list` sorts IDs with `localeCompare`, whose order depends on the Node/ICU build and the
// locale environment, and whose first call loads ICU's collation data (~10-15 ms). When
// the supervisor's key equals the CLI's, the supervisor's sort is the CLI's: the fast
// `list --json` then prints the entries as they come. No Effect here (dist/quick.cjs).

type Env = Readonly<Record<string, string | undefined>>

const localeVariable = /^(LANG|LANGUAGE|LC_[A-Z_]+|NODE_ICU_DATA|ICU_DATA|NODE_OPTIONS)$/

/** Everything that decides the order of `localeCompare` besides the strings compared. */
export const collationKey = (env: Env): string =>
  JSON.stringify([
    process.version,
    process.versions.icu ?? "",
    ...Object.keys(env)
      .filter((k) => localeVariable.test(k))
      .sort()
      .map((k) => `${k}=${env[k]}`),
  ])
