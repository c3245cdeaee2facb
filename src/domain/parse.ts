import { Either, ParseResult } from "effect"
import type * as AST from "effect/SchemaAST"

/** Turns a string parser returning Either<A, message> into a Schema transform decoder. */
export const decodeWith =
  <A>(parse: (s: string) => Either.Either<A, string>) =>
  (s: string, _: unknown, ast: AST.AST) =>
    Either.match(parse(s), {
      onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, s, message)),
      onRight: (a) => ParseResult.succeed(a),
    })
