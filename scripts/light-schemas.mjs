// esbuild plugin: makes Effect's schemas cheaper to build. `Schema.make` declares a new class for
// every schema, and each combinator (`Literal`, `Struct`, `Union`, `Array`, `filter`, `transform`,
// ...) declares one more on top, with static methods and fields. A class is a prototype chain of
// its own, so V8 gives each one its own hidden classes: ~1.2 KiB of heap for a `Literal` whose
// AST is 0.1 KiB, and the supervisor and the CLI build some 2,300 schemas at every start. Here
// `make` returns a plain constructor function, and each combinator's schema is such a function
// whose statics come from one object per kind (the kind's `annotations`, then `make`'s `pipe`,
// `toString`, ...), with its own fields (`literals`, `fields`, `make`, `from`, ...) as before.
// What a schema is, reads and does stays the same: subclasses still `extends` it, `make`, `pick`
// and `omit` stay functions of their own (docs/benchmarks.md, memory per subsystem).
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
// Declarations the module's top level may reach before their line are functions and `var`s.
const replacement = `const makeAst = Symbol("effect/Schema/makeAst");
var schemaStatics;
function baseStatics() {
  return schemaStatics ??= Object.setPrototypeOf({
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
function schemaKind(methods, base = baseStatics()) {
  return Object.setPrototypeOf(methods, base);
}
function makeWith(ast, statics) {
  const SchemaClass = function SchemaClass() {
    this[TypeId] = variance;
  };
  Object.setPrototypeOf(SchemaClass, statics);
  SchemaClass.ast = ast;
  SchemaClass[makeAst] = ast;
  return SchemaClass;
}
export function make(ast) {
  return makeWith(ast, baseStatics());
}`

// The statics of one kind: its own `annotations`, which makes a schema of the same kind, on top of
// `base`'s (`make`'s statics when none). A function and a `var`: the module's top level can make
// a schema before the kind's line.
const kind = (name, factory, fields, base) => `var ${name}Statics;
function ${name}Kind() {
  return ${name}Statics ??= schemaKind({
    annotations(annotations) {
      return ${factory}(${fields}, mergeSchemaAnnotations(this.ast, annotations));
    }
  }${base === undefined ? "" : `, ${base}Kind()`});
}
`

// Each combinator's class, and its replacement: the kind's statics, the schema's own fields.
const combinators = [
  // literal
  {
    find: `function makeLiteralClass(literals, ast = getDefaultLiteralAST(literals)) {
  return class LiteralClass extends make(ast) {
    static annotations(annotations) {
      return makeLiteralClass(this.literals, mergeSchemaAnnotations(this.ast, annotations));
    }
    static literals = [...literals];
  };
}`,
    replace: `${kind("literal", "makeLiteralClass", "this.literals")}function makeLiteralClass(literals, ast = getDefaultLiteralAST(literals)) {
  const S = makeWith(ast, literalKind());
  S.literals = [...literals];
  return S;
}`,
  },
  // enums
  {
    find: `const makeEnumsClass = (enums, ast = getDefaultEnumsAST(enums)) => class EnumsClass extends make(ast) {
  static annotations(annotations) {
    return makeEnumsClass(this.enums, mergeSchemaAnnotations(this.ast, annotations));
  }
  static enums = {
    ...enums
  };
};`,
    replace: `${kind("enums", "makeEnumsClass", "this.enums")}const makeEnumsClass = (enums, ast = getDefaultEnumsAST(enums)) => {
  const S = makeWith(ast, enumsKind());
  S.enums = {
    ...enums
  };
  return S;
};`,
  },
  // declare
  {
    find: `function makeDeclareClass(typeParameters, ast) {
  return class DeclareClass extends make(ast) {
    static annotations(annotations) {
      return makeDeclareClass(this.typeParameters, mergeSchemaAnnotations(this.ast, annotations));
    }
    static typeParameters = [...typeParameters];
  };
}`,
    replace: `${kind("declare", "makeDeclareClass", "this.typeParameters")}function makeDeclareClass(typeParameters, ast) {
  const S = makeWith(ast, declareKind());
  S.typeParameters = [...typeParameters];
  return S;
}`,
  },
  // union
  {
    find: `function makeUnionClass(members, ast = getDefaultUnionAST(members)) {
  return class UnionClass extends make(ast) {
    static annotations(annotations) {
      return makeUnionClass(this.members, mergeSchemaAnnotations(this.ast, annotations));
    }
    static members = [...members];
  };
}`,
    replace: `${kind("union", "makeUnionClass", "this.members")}function makeUnionClass(members, ast = getDefaultUnionAST(members)) {
  const S = makeWith(ast, unionKind());
  S.members = [...members];
  return S;
}`,
  },
  // tuple
  {
    find: `function makeTupleTypeClass(elements, rest, ast = getDefaultTupleTypeAST(elements, rest)) {
  return class TupleTypeClass extends make(ast) {
    static annotations(annotations) {
      return makeTupleTypeClass(this.elements, this.rest, mergeSchemaAnnotations(this.ast, annotations));
    }
    static elements = [...elements];
    static rest = [...rest];
  };
}`,
    replace: `${kind("tuple", "makeTupleTypeClass", "this.elements, this.rest")}function makeTupleTypeClass(elements, rest, ast = getDefaultTupleTypeAST(elements, rest), statics = tupleKind()) {
  const S = makeWith(ast, statics);
  S.elements = [...elements];
  S.rest = [...rest];
  return S;
}`,
  },
  // array
  {
    find: `function makeArrayClass(value, ast) {
  return class ArrayClass extends makeTupleTypeClass([], [value], ast) {
    static annotations(annotations) {
      return makeArrayClass(this.value, mergeSchemaAnnotations(this.ast, annotations));
    }
    static value = value;
  };
}`,
    replace: `${kind("array", "makeArrayClass", "this.value", "tuple")}function makeArrayClass(value, ast) {
  const S = makeTupleTypeClass([], [value], ast, arrayKind());
  S.value = value;
  return S;
}`,
  },
  // nonEmpty
  {
    find: `function makeNonEmptyArrayClass(value, ast) {
  return class NonEmptyArrayClass extends makeTupleTypeClass([value], [value], ast) {
    static annotations(annotations) {
      return makeNonEmptyArrayClass(this.value, mergeSchemaAnnotations(this.ast, annotations));
    }
    static value = value;
  };
}`,
    replace: `${kind("nonEmptyArray", "makeNonEmptyArrayClass", "this.value", "tuple")}function makeNonEmptyArrayClass(value, ast) {
  const S = makeTupleTypeClass([value], [value], ast, nonEmptyArrayKind());
  S.value = value;
  return S;
}`,
  },
  // typeLiteral
  {
    find: `function makeTypeLiteralClass(fields, records, ast = getDefaultTypeLiteralAST(fields, records)) {
  return class TypeLiteralClass extends make(ast) {
    static annotations(annotations) {
      return makeTypeLiteralClass(this.fields, this.records, mergeSchemaAnnotations(this.ast, annotations));
    }
    static fields = {
      ...fields
    };
    static records = [...records];
    static make = (props, options) => {
      const propsWithDefaults = lazilyMergeDefaults(fields, {
        ...props
      });
      return getDisableValidationMakeOption(options) ? propsWithDefaults : ParseResult.validateSync(this)(propsWithDefaults);
    };
    static pick(...keys) {
      return Struct(struct_.pick(fields, ...keys));
    }
    static omit(...keys) {
      return Struct(struct_.omit(fields, ...keys));
    }
  };
}`,
    replace: `${kind("typeLiteral", "makeTypeLiteralClass", "this.fields, this.records")}function makeTypeLiteralClass(fields, records, ast = getDefaultTypeLiteralAST(fields, records), statics = typeLiteralKind()) {
  const S = makeWith(ast, statics);
  S.fields = {
    ...fields
  };
  S.records = [...records];
  S.make = (props, options) => {
    const propsWithDefaults = lazilyMergeDefaults(fields, {
      ...props
    });
    return getDisableValidationMakeOption(options) ? propsWithDefaults : ParseResult.validateSync(S)(propsWithDefaults);
  };
  S.pick = (...keys) => Struct(struct_.pick(fields, ...keys));
  S.omit = (...keys) => Struct(struct_.omit(fields, ...keys));
  return S;
}`,
  },
  // record
  {
    find: `function makeRecordClass(key, value, ast) {
  return class RecordClass extends makeTypeLiteralClass({}, [{
    key,
    value
  }], ast) {
    static annotations(annotations) {
      return makeRecordClass(key, value, mergeSchemaAnnotations(this.ast, annotations));
    }
    static key = key;
    static value = value;
  };
}`,
    replace: `${kind("record", "makeRecordClass", "this.key, this.value", "typeLiteral")}function makeRecordClass(key, value, ast) {
  const S = makeTypeLiteralClass({}, [{
    key,
    value
  }], ast, recordKind());
  S.key = key;
  S.value = value;
  return S;
}`,
  },
  // brand
  {
    find: `function makeBrandClass(from, ast) {
  return class BrandClass extends make(ast) {
    static annotations(annotations) {
      return makeBrandClass(this.from, mergeSchemaAnnotations(this.ast, annotations));
    }
    static make = (a, options) => {
      return getDisableValidationMakeOption(options) ? a : ParseResult.validateSync(this)(a);
    };
    static from = from;
  };
}`,
    replace: `${kind("brand", "makeBrandClass", "this.from")}function makeBrandClass(from, ast) {
  const S = makeWith(ast, brandKind());
  S.make = (a, options) => {
    return getDisableValidationMakeOption(options) ? a : ParseResult.validateSync(S)(a);
  };
  S.from = from;
  return S;
}`,
  },
  // refine
  {
    find: `function makeRefineClass(from, filter, ast) {
  return class RefineClass extends make(ast) {
    static annotations(annotations) {
      return makeRefineClass(this.from, this.filter, mergeSchemaAnnotations(this.ast, annotations));
    }
    static [RefineSchemaId] = from;
    static from = from;
    static filter = filter;
    static make = (a, options) => {
      return getDisableValidationMakeOption(options) ? a : ParseResult.validateSync(this)(a);
    };
  };
}`,
    replace: `${kind("refine", "makeRefineClass", "this.from, this.filter")}function makeRefineClass(from, filter, ast) {
  const S = makeWith(ast, refineKind());
  S[RefineSchemaId] = from;
  S.from = from;
  S.filter = filter;
  S.make = (a, options) => {
    return getDisableValidationMakeOption(options) ? a : ParseResult.validateSync(S)(a);
  };
  return S;
}`,
  },
  // transformation
  {
    find: `function makeTransformationClass(from, to, ast) {
  return class TransformationClass extends make(ast) {
    static annotations(annotations) {
      return makeTransformationClass(this.from, this.to, mergeSchemaAnnotations(this.ast, annotations));
    }
    static from = from;
    static to = to;
  };
}`,
    replace: `${kind("transformation", "makeTransformationClass", "this.from, this.to")}function makeTransformationClass(from, to, ast) {
  const S = makeWith(ast, transformationKind());
  S.from = from;
  S.to = to;
  return S;
}`,
  },
]

export const lightSchemas = sourcePatch({
  name: "light-schemas",
  target,
  edits: [{ find: original, replace: replacement }, ...combinators],
})
