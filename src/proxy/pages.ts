/** An error the proxy answers itself, for a person to read. */
export interface ProxyFailure {
  readonly _tag: "Failure"
  readonly status: number
  readonly title: string
  /** Paragraphs of explanation. */
  readonly lines: ReadonlyArray<string>
  /** Lines shown as preformatted text (a daemon's last log lines); may be empty. */
  readonly log?: ReadonlyArray<string> | undefined
}

export const failure = (
  status: number,
  title: string,
  lines: ReadonlyArray<string>,
  log?: ReadonlyArray<string>,
): ProxyFailure => ({ _tag: "Failure", status, title, lines, log })

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** Plain text when the client asks for it (Accept names text/plain and not text/html), else HTML. */
export const wantsText = (accept: string | undefined): boolean =>
  accept?.includes("text/plain") === true && !accept.includes("text/html")

/** The body and content type of a failure page. */
export const renderFailure = (f: ProxyFailure, accept: string | undefined) => {
  if (wantsText(accept)) {
    const log = f.log !== undefined && f.log.length > 0 ? `\nLast log lines:\n${f.log.join("\n")}\n` : ""
    return {
      contentType: "text/plain; charset=utf-8",
      body: `${f.status} ${f.title}\n\n${f.lines.join("\n")}\n${log}`,
    }
  }
  const log =
    f.log !== undefined && f.log.length > 0
      ? `<h2>Last log lines</h2><pre>${escapeHtml(f.log.join("\n"))}</pre>`
      : ""
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${f.status} ${escapeHtml(f.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46em;margin:3em auto;padding:0 1em;color:#222}
pre{background:#f4f4f4;padding:1em;overflow:auto}code{background:#f4f4f4;padding:0 .2em}</style></head>
<body><h1>${f.status} ${escapeHtml(f.title)}</h1>
${f.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
${log}
<p><small>supervisor proxy</small></p></body></html>
`
  return { contentType: "text/html; charset=utf-8", body }
}
