// esbuild plugin: makes Effect's schemas cheaper to build. `Schema.make` declares a new class for
// every schema (each `Struct`, `optional`, `annotations(...)`), with static methods, static fields
// and an instance-field initializer: ~1 KiB of heap and a class definition each. The supervisor
// and the CLI build some 2,300 of them at every start, before doing anything. Here `make` returns
// a plain constructor function whose statics (`ast` aside) come from one shared object: what a
// schema is, reads and does stays the same (subclasses still `extends` it). A small gain: the
// classes the combinators declare on top remain (docs/benchmarks.md, "Collection at rest, no
// Sparkplug, lighter schemas").
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]effect[\\/]dist[\\/]esm[\\/]Schema\.js$/
const original = `export function make(ast) {
  return class SchemaClass {
    [TypeId] = variance;
    static ast = ast;
    static annotations(annotations) {
      return make(mergeSchemaAnnotations(this.ast, annotations));
    }
    static pipe() {
      return pipeArguments(this, arguments);
    }
    static toString() {
      return String(ast);
    }
    static Type;
    static Encoded;
    static Context;
    static [TypeId] = variance;
  };
}`
// `toString` reads the schema's own `ast` at make time (a symbol key), as the class's closure did.
const replacement = `const makeAst = Symbol("effect/Schema/makeAst");
let schemaStatics;
export function make(ast) {
  if (schemaStatics === undefined) {
    schemaStatics = Object.setPrototypeOf({
      annotations(annotations) {
        return make(mergeSchemaAnnotations(this.ast, annotations));
      },
      pipe() {
        return pipeArguments(this, arguments);
      },
      toString() {
        return String(this[makeAst]);
      },
      Type: undefined,
      Encoded: undefined,
      Context: undefined,
      [TypeId]: variance
    }, Function.prototype);
  }
  const SchemaClass = function SchemaClass() {
    this[TypeId] = variance;
  };
  Object.setPrototypeOf(SchemaClass, schemaStatics);
  SchemaClass.ast = ast;
  SchemaClass[makeAst] = ast;
  return SchemaClass;
}`

export const lightSchemas = sourcePatch({
  name: "light-schemas",
  target,
  find: original,
  replace: replacement,
})
