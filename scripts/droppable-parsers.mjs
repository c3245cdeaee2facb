// esbuild plugin (the supervisor's bundle): lets the collection at rest drop Effect's compiled
// parsers. ParseResult compiles a decoder or encoder for a schema at its first use and keeps it
// for the process's life, in a memo keyed by the schema's AST and in each `decodeUnknownSync(X)`
// made at a module's top level: ~1.2 MiB of closures in a supervisor with 50 daemons, most of
// them for a config read at a start. Here those functions look their parser up in the memo at
// each call (a WeakMap lookup), and `globalThis[Symbol.for("supervisor/dropCompiledParsers")]`
// empties the memo: what runs next compiles again what it uses (src/host/restCollection.ts).
// esbuild loads a file through one plugin only: this one also makes lazy-expected-keys' rewrites.
import { expectedKeysEdits } from "./lazy-expected-keys.mjs"
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]effect[\\/]dist[\\/]esm[\\/]ParseResult\.js$/

export const droppableParsers = sourcePatch({
  name: "droppable-parsers",
  target,
  edits: [
    ...expectedKeysEdits,
    {
      find: `const decodeMemoMap = /*#__PURE__*/globalValue(/*#__PURE__*/Symbol.for("effect/ParseResult/decodeMemoMap"), () => new WeakMap());
const encodeMemoMap = /*#__PURE__*/globalValue(/*#__PURE__*/Symbol.for("effect/ParseResult/encodeMemoMap"), () => new WeakMap());`,
      replace: `let decodeMemoMap = new WeakMap();
let encodeMemoMap = new WeakMap();
globalThis[Symbol.for("supervisor/dropCompiledParsers")] = () => {
  decodeMemoMap = new WeakMap();
  encodeMemoMap = new WeakMap();
};`,
    },
    {
      find: `const getEither = (ast, isDecoding, options) => {
  const parser = goMemo(ast, isDecoding);
  return (u, overrideOptions) => parser(u, mergeInternalOptions(options, overrideOptions));
};`,
      replace: `const getEither = (ast, isDecoding, options) => (u, overrideOptions) => goMemo(ast, isDecoding)(u, mergeInternalOptions(options, overrideOptions));`,
    },
    {
      find: `const getEffect = (ast, isDecoding, options) => {
  const parser = goMemo(ast, isDecoding);
  return (input, overrideOptions) => parser(input, {`,
      replace: `const getEffect = (ast, isDecoding, options) => {
  return (input, overrideOptions) => goMemo(ast, isDecoding)(input, {`,
    },
  ],
})
