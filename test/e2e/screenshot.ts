/**
 * Screenshot checks without image libraries: both PNGs are decoded by the browser into canvases
 * and their pixels compared there. `UPDATE_SCREENSHOTS=1` writes the baseline instead.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import type { Browser } from "playwright-core"
import { expect } from "vitest"

/** The share of pixels that may differ from the baseline (font antialiasing). */
export const TOLERANCE = 0.005

/** Differing pixels of two PNGs (decoded by the browser into canvases): [differing, total], or a size mismatch. */
const comparePngs = async (
  browser: Browser,
  a: Buffer,
  b: Buffer,
): Promise<{ differing: number; total: number } | string> => {
  const page = await (await browser.newContext()).newPage()
  try {
    return await page.evaluate(
      async ([x, y]: ReadonlyArray<string>) => {
        const g = globalThis as unknown as {
          Image: new () => { src: string; width: number; height: number; decode(): Promise<void> }
          document: { createElement(t: "canvas"): unknown }
        }
        const pixels = async (src: string) => {
          const img = new g.Image()
          img.src = src
          await img.decode()
          const canvas = g.document.createElement("canvas") as {
            width: number
            height: number
            getContext(k: "2d"): {
              drawImage(i: unknown, x: number, y: number): void
              getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
            }
          }
          canvas.width = img.width
          canvas.height = img.height
          const ctx = canvas.getContext("2d")
          ctx.drawImage(img, 0, 0)
          return { w: img.width, h: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data }
        }
        const [p, q] = [await pixels(x ?? ""), await pixels(y ?? "")]
        if (p.w !== q.w || p.h !== q.h) return `size ${p.w}x${p.h} differs from the baseline's ${q.w}x${q.h}`
        let differing = 0
        for (let i = 0; i < p.data.length; i += 4) {
          let d = 0
          for (let c = i; c < i + 3; c++) d = Math.max(d, Math.abs((p.data[c] ?? 0) - (q.data[c] ?? 0)))
          if (d > 40) differing++
        }
        return { differing, total: p.w * p.h }
      },
      [`data:image/png;base64,${a.toString("base64")}`, `data:image/png;base64,${b.toString("base64")}`],
    )
  } finally {
    await page.context().close()
  }
}

/** Fails unless `shot` matches the PNG at `baseline` (writing it to `actual` then); writes it with UPDATE_SCREENSHOTS=1. */
export const expectBaseline = async (browser: Browser, baseline: string, shot: Buffer, actual: string) => {
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    mkdirSync(dirname(baseline), { recursive: true })
    writeFileSync(baseline, shot)
    return
  }
  if (!existsSync(baseline))
    throw new Error(
      `no baseline at ${baseline}: run the test with UPDATE_SCREENSHOTS=1 to write it, look at it, and commit it`,
    )
  const result = await comparePngs(browser, shot, readFileSync(baseline))
  if (typeof result === "string" || result.differing / result.total > TOLERANCE) writeFileSync(actual, shot)
  if (typeof result === "string") throw new Error(`${result} (${baseline}; this run's: ${actual})`)
  expect(
    result.differing / result.total,
    `${result.differing} of ${result.total} pixels differ from ${baseline} (this run's: ${actual}); if the change is intended, run with UPDATE_SCREENSHOTS=1`,
  ).toBeLessThanOrEqual(TOLERANCE)
}

/** Whether `shot` differs from the baseline beyond the tolerance (a check that the comparison sees changes). */
export const screenshotDiffers = async (
  browser: Browser,
  baseline: string,
  shot: Buffer,
): Promise<boolean> => {
  const result = await comparePngs(browser, shot, readFileSync(baseline))
  return typeof result === "string" || result.differing / result.total > TOLERANCE
}
