/**
 * The web page's icon: an inline SVG (a rounded square with a pulse line), served at
 * `favicon.svg` and `/favicon.ico` of the web listener, so that a page load logs no 404.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#2f6fde"/>
<path d="M5 17h6l3-7 4 13 3-6h6" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`

/** The `<link>` of the icon, relative to the page (so that it works under a base path). */
export const FAVICON_LINK = '<link rel="icon" type="image/svg+xml" href="favicon.svg">'
