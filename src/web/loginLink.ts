// The page of a `/login?code=...` link that is invalid or used already: the web page's header,
// stylesheet and icon around one card, rather than a bare line of text.
import { FAVICON_LINK } from "./favicon.js"
import { STYLE } from "./style.js"
import { STYLE_NARROW } from "./styleNarrow.js"

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** The link back, drawn as the page's primary button. */
const LINK_STYLE = `
a.back { display: inline-block; padding: 6px 14px; border-radius: 6px; text-decoration: none;
  background: var(--accent); border: 1px solid var(--accent); color: #fff; font-size: 12.5px; }
`

/** The document: `message` (text, escaped) and a link back to the page at `basePath`. */
export const loginLinkPage = (message: string, basePath: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>supervisor: login</title>
${FAVICON_LINK}
<style>${STYLE}${STYLE_NARROW}${LINK_STYLE}</style>
</head>
<body>
<header><h1>supervisor</h1></header>
<main>
  <section id="login" class="card">
    <h2>Login link not valid</h2>
    <p>${escapeHtml(message).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>
    <a class="back" href="${escapeHtml(basePath)}/">Back to the login page</a>
  </section>
</main>
</body>
</html>
`
