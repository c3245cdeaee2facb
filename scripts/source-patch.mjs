// An esbuild plugin that rewrites one text in the modules `target` matches. The build fails if the
// text is not there, so that an upgrade of the library cannot undo the rewrite silently.
import { readFile } from "node:fs/promises"

export const sourcePatch = ({ name, target, find, replace, all = false }) => ({
  name,
  setup(b) {
    b.onLoad({ filter: target }, async (args) => {
      const source = await readFile(args.path, "utf8")
      if (!source.includes(find))
        return {
          errors: [
            { text: `${args.path}: the text ${name} rewrites is not there (see scripts/${name}.mjs)` },
          ],
        }
      return {
        contents: all ? source.replaceAll(find, replace) : source.replace(find, replace),
        loader: "js",
      }
    })
  },
})
