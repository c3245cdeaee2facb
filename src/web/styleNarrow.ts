/**
 * The page below 1000 px (phones, tablets): each daemon is a card (its ID on a line of its own,
 * the other columns as labelled fields in a grid, the actions under them) instead of a table
 * row, so nothing is cut off or squeezed to one character and the page never scrolls sideways.
 * Between that and a wide screen the table keeps its ID column at least 220 px wide and
 * scrolls in its card. Wide screens are unchanged.
 */
export const STYLE_NARROW = `
#app > .card > table { min-width: 1166px; }
@media (max-width: 999px) {
  header { padding: 10px 14px; flex-wrap: wrap; gap: 6px 12px; }
  #stats { flex-basis: 100%; order: 3; font-size: 12.5px; }
  main { padding: 14px 12px; }
  #app > .card { overflow-x: visible; }
  #app > .card > table { min-width: 0; }
  #app > .card > table > thead { display: none; }
  #daemons tr { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px 14px;
    padding: 12px 14px; border-bottom: 1px solid var(--line); contain-intrinsic-size: auto 256px; }
  #daemons tr:last-child { border-bottom: none; }
  #daemons td { display: block; padding: 0; border: none; min-width: 0; overflow-wrap: normal; }
  #daemons td[data-label]::before { content: attr(data-label); display: block; font-size: 11px;
    font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
  #daemons td:first-child, #daemons td.actions { grid-column: 1 / -1; }
  #daemons td:first-child .idlink { font-size: 14.5px; font-weight: 600; overflow-wrap: anywhere; }
  #daemons .sub, #daemons .result { max-width: none; }
  #daemons td.actions { white-space: normal; }
  #daemons td.actions button { padding: 6px 12px; }
  #log-filter { flex: 1 1 160px; width: auto; min-width: 0; }
  #log-lines { height: 60vh; }
  #term-box { height: 60vh; }
  #login { margin: 24px auto; padding: 18px; }
  #login form { flex-wrap: wrap; }
  dialog#help { min-width: 0; width: calc(100% - 24px); padding: 16px; }
}
@media (min-width: 600px) and (max-width: 999px) {
  #daemons tr { grid-template-columns: repeat(3, minmax(0, 1fr)); contain-intrinsic-size: auto 212px; }
}
`
