// The options of `supervisor complete` and their types: what the command (cli/complete.ts)
// parses and its action (actions/complete.ts) receives.

/** What `supervisor complete` prints: the words a shell completes for a value of that kind. */
export const COMPLETE_KINDS = ["daemons", "groups", "settings"] as const
export type CompleteKind = (typeof COMPLETE_KINDS)[number]
