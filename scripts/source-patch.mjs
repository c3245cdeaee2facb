// An esbuild plugin that rewrites texts in the modules `target` matches: `find` by `replace`, or
// each of `edits` in turn. The build fails if a text is not there, so that an upgrade of the
// library cannot undo a rewrite silently.
import { readFile } from "node:fs/promises"

export const sourcePatch = ({
  name,
  target,
  find,
  replace,
  all = false,
  edits = [{ find, replace, all }],
}) => ({
  name,
  setup(b) {
    b.onLoad({ filter: target }, async (args) => {
      let source = await readFile(args.path, "utf8")
      for (const edit of edits) {
        if (!source.includes(edit.find))
          return {
            errors: [
              { text: `${args.path}: a text ${name} rewrites is not there (see scripts/${name}.mjs)` },
            ],
          }
        source = edit.all
          ? source.replaceAll(edit.find, edit.replace)
          : source.replace(edit.find, edit.replace)
      }
      return { contents: source, loader: "js" }
    })
  },
})
