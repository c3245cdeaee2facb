// kdljs 0.3.0 exports only `parse`/`format`/`query`; its nodes carry no source positions. The
// lexer it uses internally is exported by `src/parser/kdl.js` (the package has no `exports`
// map, so the deep import resolves). `locate.ts` re-lexes a file with it to find the line of
// each node; only the token fields used there are declared.
declare module "kdljs/src/parser/kdl.js" {
  export interface KdlToken {
    readonly image: string
    readonly startLine?: number
    readonly tokenType: { readonly name: string }
  }
  export const lexer: {
    tokenize(text: string): {
      readonly tokens: ReadonlyArray<KdlToken>
      readonly errors: ReadonlyArray<unknown>
    }
  }
}
