// Runs a parsed `--jq` expression (parse.ts) on one value. Every expression gives a list of
// outputs (jq's generators); an error (indexing a number, an unknown function's use) ends it.
import { type BinaryOp, JqSyntaxError, type Node, parseJq } from "./parse.js"

/** A run-time error of the expression on one value: that entry does not match. */
export class JqRuntimeError extends Error {}

type Json = unknown
const fail = (message: string): never => {
  throw new JqRuntimeError(message)
}

const typeOf = (v: Json): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v
const truthy = (v: Json) => v !== null && v !== false
const ORDER = ["null", "boolean", "number", "string", "array", "object"]

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export const compare = (a: Json, b: Json): number => {
  const ta = typeOf(a)
  const tb = typeOf(b)
  if (ta !== tb) return ORDER.indexOf(ta) - ORDER.indexOf(tb)
  switch (ta) {
    case "boolean":
    case "number":
      return Number(a) - Number(b)
    case "string":
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0
    case "array": {
      const x = a as Array<Json>
      const y = b as Array<Json>
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compare(x[i], y[i])
        if (c !== 0) return c
      }
      return x.length - y.length
    }
    case "object": {
      const x = a as Record<string, Json>
      const y = b as Record<string, Json>
      const kc = compare(Object.keys(x).sort(), Object.keys(y).sort())
      if (kc !== 0) return kc
      for (const k of Object.keys(x).sort()) {
        const c = compare(x[k], y[k])
        if (c !== 0) return c
      }
      return 0
    }
    default:
      return 0
  }
}

const arith = (op: BinaryOp, a: Json, b: Json): Json => {
  if (op === "+") {
    if (a === null) return b
    if (b === null) return a
    if (typeof a === "number" && typeof b === "number") return a + b
    if (typeof a === "string" && typeof b === "string") return a + b
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b]
    if (typeOf(a) === "object" && typeOf(b) === "object") return { ...(a as object), ...(b as object) }
  } else if (typeof a === "number" && typeof b === "number") {
    if (op === "-") return a - b
    if (op === "*") return a * b
    if ((op === "/" || op === "%") && b === 0) return fail(`${a} cannot be divided by zero`)
    if (op === "/") return a / b
    if (op === "%") return Math.trunc(a) % Math.trunc(b)
  } else if (op === "-" && Array.isArray(a) && Array.isArray(b))
    return a.filter((x) => !b.some((y) => compare(x, y) === 0))
  else if (op === "/" && typeof a === "string" && typeof b === "string") return a.split(b)
  return fail(`${typeOf(a)} and ${typeOf(b)} cannot be combined with ${op}`)
}

const contains = (a: Json, b: Json): boolean => {
  if (typeof a === "string" && typeof b === "string") return a.includes(b)
  if (Array.isArray(a) && Array.isArray(b)) return b.every((y) => a.some((x) => contains(x, y)))
  if (typeOf(a) === "object" && typeOf(b) === "object")
    return Object.entries(b as object).every(
      ([k, v]) => k in (a as object) && contains((a as Record<string, Json>)[k], v),
    )
  if (typeOf(a) !== typeOf(b))
    return fail(`${typeOf(a)} and ${typeOf(b)} cannot have their containment checked`)
  return compare(a, b) === 0
}

const lengthOf = (v: Json): number =>
  v === null
    ? 0
    : typeof v === "string" || Array.isArray(v)
      ? v.length
      : typeof v === "number"
        ? Math.abs(v)
        : typeof v === "object"
          ? Object.keys(v).length
          : fail("boolean has no length")

const str = (v: Json, what: string): string => (typeof v === "string" ? v : fail(`${what} needs a string`))

/** The functions of the subset, by name and number of arguments. */
const FUNCTIONS = new Set([
  "empty/0",
  "not/0",
  "length/0",
  "keys/0",
  "type/0",
  "tostring/0",
  "tonumber/0",
  "tojson/0",
  "ascii_downcase/0",
  "ascii_upcase/0",
  "any/0",
  "all/0",
  "first/0",
  "last/0",
  "select/1",
  "has/1",
  "contains/1",
  "startswith/1",
  "endswith/1",
  "ltrimstr/1",
  "rtrimstr/1",
  "split/1",
  "join/1",
  "test/1",
  "test/2",
  "map/1",
  "any/1",
  "all/1",
])

/** The names `--jq` knows, for its help and errors. */
export const JQ_FUNCTIONS = [...new Set([...FUNCTIONS].map((f) => f.replace(/\/\d$/, "")))].sort()

const regexCache = new Map<string, RegExp>()
const regex = (pattern: string, flags: string): RegExp => {
  const key = `${flags}/${pattern}`
  let re = regexCache.get(key)
  if (re === undefined) {
    const js = [...new Set(flags.replace(/[gnx]/g, ""))].join("")
    try {
      re = new RegExp(pattern, js)
    } catch (e) {
      return fail(`invalid regex ${JSON.stringify(pattern)}: ${(e as Error).message}`)
    }
    if (regexCache.size > 100) regexCache.clear()
    regexCache.set(key, re)
  }
  return re
}

const call = (name: string, args: ReadonlyArray<Node>, v: Json): Array<Json> => {
  const one = (n: Node) => run(n, v)
  switch (name) {
    case "empty":
      return []
    case "not":
      return [!truthy(v)]
    case "length":
      return [lengthOf(v)]
    case "keys":
      return [
        typeOf(v) === "object"
          ? Object.keys(v as object).sort()
          : Array.isArray(v)
            ? v.map((_, i) => i)
            : fail(`${typeOf(v)} has no keys`),
      ]
    case "type":
      return [typeOf(v)]
    case "tostring":
      return [typeof v === "string" ? v : JSON.stringify(v)]
    case "tojson":
      return [JSON.stringify(v)]
    case "tonumber": {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN
      return Number.isNaN(n) ? fail(`cannot parse ${JSON.stringify(v)} as a number`) : [n]
    }
    case "ascii_downcase":
      return [str(v, "ascii_downcase").replace(/[A-Z]/g, (c) => c.toLowerCase())]
    case "ascii_upcase":
      return [str(v, "ascii_upcase").replace(/[a-z]/g, (c) => c.toUpperCase())]
    case "first":
      return Array.isArray(v) ? [v[0] ?? null] : fail("first needs an array")
    case "last":
      return Array.isArray(v) ? [v.at(-1) ?? null] : fail("last needs an array")
    case "any":
    case "all": {
      const items = Array.isArray(v) ? v : fail(`${name} needs an array`)
      const test = (x: Json) => (args[0] === undefined ? truthy(x) : run(args[0], x).some(truthy))
      return [name === "any" ? items.some(test) : items.every(test)]
    }
    case "map":
      return [(Array.isArray(v) ? v : fail("map needs an array")).flatMap((x) => run(args[0]!, x))]
    case "select":
      return one(args[0]!)
        .filter(truthy)
        .map(() => v)
    case "has":
      return one(args[0]!).map((k) =>
        Array.isArray(v)
          ? typeof k === "number" && k >= 0 && k < v.length
          : typeOf(v) === "object"
            ? Object.hasOwn(v as object, str(k, "has"))
            : fail(`${typeOf(v)} has no keys`),
      )
    case "contains":
      return one(args[0]!).map((x) => contains(v, x))
    case "startswith":
      return one(args[0]!).map((x) => str(v, "startswith").startsWith(str(x, "startswith")))
    case "endswith":
      return one(args[0]!).map((x) => str(v, "endswith").endsWith(str(x, "endswith")))
    case "ltrimstr":
      return one(args[0]!).map((x) =>
        typeof v === "string" && typeof x === "string" && v.startsWith(x) ? v.slice(x.length) : v,
      )
    case "rtrimstr":
      return one(args[0]!).map((x) =>
        typeof v === "string" && typeof x === "string" && x !== "" && v.endsWith(x)
          ? v.slice(0, -x.length)
          : v,
      )
    case "split":
      return one(args[0]!).map((x) => str(v, "split").split(str(x, "split")))
    case "join":
      return one(args[0]!).map((sep) =>
        (Array.isArray(v) ? v : fail("join needs an array"))
          .map((x) => (x === null ? "" : typeof x === "object" ? fail("join needs scalars") : String(x)))
          .join(str(sep, "join")),
      )
    case "test": {
      const flags = args[1] === undefined ? [""] : one(args[1])
      return one(args[0]!).flatMap((re) =>
        flags.map((f) => regex(str(re, "test"), str(f, "test")).test(str(v, "test"))),
      )
    }
    default:
      return fail(`unknown function ${name}`)
  }
}

const indexInto = (v: Json, k: Json, optional: boolean): Array<Json> => {
  if (v === null) return [null]
  if (typeof k === "string" && typeOf(v) === "object") return [(v as Record<string, Json>)[k] ?? null]
  if (typeof k === "number" && Array.isArray(v))
    return [v[k < 0 ? v.length + Math.trunc(k) : Math.trunc(k)] ?? null]
  return optional ? [] : fail(`cannot index ${typeOf(v)} with ${typeOf(k)}`)
}

const run = (node: Node, v: Json): Array<Json> => {
  switch (node.t) {
    case "identity":
      return [v]
    case "literal":
      return [node.value]
    case "index":
      return run(node.of, v).flatMap((x) => run(node.key, v).flatMap((k) => indexInto(x, k, node.optional)))
    case "iterate":
      return run(node.of, v).flatMap((x) =>
        Array.isArray(x)
          ? x
          : typeOf(x) === "object"
            ? Object.values(x as object)
            : node.optional
              ? []
              : fail(`cannot iterate over ${typeOf(x)}`),
      )
    case "pipe":
      return run(node.left, v).flatMap((x) => run(node.right, x))
    case "comma":
      return [...run(node.left, v), ...run(node.right, v)]
    case "neg":
      return run(node.of, v).map((x) => (typeof x === "number" ? -x : fail(`${typeOf(x)} cannot be negated`)))
    case "array":
      return [node.of === undefined ? [] : run(node.of, v)]
    case "object": {
      let out: Array<Record<string, Json>> = [{}]
      for (const [kn, vn] of node.entries) {
        const keys = run(kn, v).map((k) => str(k, "an object key"))
        const values = run(vn, v)
        out = out.flatMap((o) => keys.flatMap((k) => values.map((x) => ({ ...o, [k]: x }))))
      }
      return out
    }
    case "call":
      return call(node.name, node.args, v)
    case "binary": {
      const { op } = node
      if (op === "and" || op === "or")
        return run(node.left, v).flatMap((l) =>
          op === "and" && !truthy(l)
            ? [false]
            : op === "or" && truthy(l)
              ? [true]
              : run(node.right, v).map(truthy),
        )
      if (op === "//") {
        const good = run(node.left, v).filter(truthy)
        return good.length > 0 ? good : run(node.right, v)
      }
      return run(node.right, v).flatMap((r) =>
        run(node.left, v).map((l) => {
          switch (op) {
            case "==":
              return compare(l, r) === 0
            case "!=":
              return compare(l, r) !== 0
            case "<":
              return compare(l, r) < 0
            case "<=":
              return compare(l, r) <= 0
            case ">":
              return compare(l, r) > 0
            case ">=":
              return compare(l, r) >= 0
            default:
              return arith(op, l, r)
          }
        }),
      )
    }
  }
}

/** Checks calls against the subset's functions (at compile time, not per entry). */
const checkCalls = (node: Node): void => {
  switch (node.t) {
    case "call":
      if (!FUNCTIONS.has(`${node.name}/${node.args.length}`))
        throw new JqSyntaxError(
          `${node.name}/${node.args.length} is not a function of --jq (it knows ${JQ_FUNCTIONS.join(", ")})`,
        )
      node.args.forEach(checkCalls)
      return
    case "index":
      checkCalls(node.of)
      checkCalls(node.key)
      return
    case "iterate":
    case "neg":
      checkCalls(node.of)
      return
    case "array":
      if (node.of !== undefined) checkCalls(node.of)
      return
    case "object":
      for (const [k, v] of node.entries) {
        checkCalls(k)
        checkCalls(v)
      }
      return
    case "pipe":
    case "comma":
    case "binary":
      checkCalls(node.left)
      checkCalls(node.right)
      return
    default:
      return
  }
}

/** All the outputs of `expression` on `input`; throws JqRuntimeError on an error. */
export const evaluate = (tree: Node, input: Json): Array<Json> => run(tree, input)

/**
 * A predicate of `--jq EXPR`: true when some output of the expression on the value is truthy
 * (neither false nor null). An error on a value counts as no match. Throws JqSyntaxError.
 */
export const compileJqFilter = (expression: string): ((input: Json) => boolean) => {
  const tree = parseJq(expression)
  checkCalls(tree)
  return (input) => {
    try {
      return run(tree, input).some(truthy)
    } catch (e) {
      if (e instanceof JqRuntimeError || e instanceof RangeError) return false
      throw e
    }
  }
}
