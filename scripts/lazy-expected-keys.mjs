// esbuild plugin: Effect's parser of a struct (`TypeLiteral` in ParseResult) makes, when it is
// compiled, a union schema of the struct's keys and that union's parser, only to tell an excess
// key (`onExcessProperty: "error"` or `"preserve"`) and to name the expected keys in its error.
// The supervisor compiles some 700 struct parsers: 1,300 literal schemas and their parsers, ~0.5
// MiB of heap kept for as long as the schemas (docs/benchmarks.md, memory per subsystem). Here a
// struct without index signatures tells its keys by a Set (the same test: the union matched a key
// `===` one of them), and the union and its parser are made at their first use only.
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]effect[\\/]dist[\\/]esm[\\/]ParseResult\.js$/

/** The rewrites, also made by scripts/droppable-parsers.mjs with its own (one plugin a file). */
export const expectedKeysEdits = [
  {
    find: `        const expectedAST = AST.Union.make(ast.indexSignatures.map(is => is.parameter).concat(expectedKeys.map(key => Predicate.isSymbol(key) ? new AST.UniqueSymbol(key) : new AST.Literal(key))));
        const expected = goMemo(expectedAST, isDecoding);`,
    replace: `        let expectedUnion;
        const expectedAST = () => expectedUnion ??= AST.Union.make(ast.indexSignatures.map(is => is.parameter).concat(expectedKeys.map(key => Predicate.isSymbol(key) ? new AST.UniqueSymbol(key) : new AST.Literal(key))));
        const expectedKeySet = ast.indexSignatures.length === 0 ? new Set(expectedKeys) : undefined;
        let expectedParser;
        const expected = (key, options) => expectedKeySet !== undefined ? expectedKeySet.has(key) ? Either.right(key) : Either.left(key) : (expectedParser ??= goMemo(expectedAST(), isDecoding))(key, options);`,
  },
  {
    find: "String(expectedAST)}`",
    replace: "String(expectedAST())}`",
  },
]

export const lazyExpectedKeys = sourcePatch({ name: "lazy-expected-keys", target, edits: expectedKeysEdits })
