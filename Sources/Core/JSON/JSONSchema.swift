/// # JSON Schema validation (draft 2020-12)
///
/// Every LLM answer, every tool call's arguments and every eval fixture is checked against a schema before it is
/// trusted; tests also check our request bodies against OpenAI's OpenAPI description. The schema is compiled once
/// (keyword arguments parsed, regexes compiled, `$ref`s resolved) and can then validate any number of values.
///
/// Supported keywords:
/// - Types and values: `type` (a name or an array of names; 1.0 counts as an integer), `enum`, `const`
///   (numbers compare by value, so 1 == 1.0).
/// - Objects: `properties`, `required`, `additionalProperties` (boolean or schema), `patternProperties`,
///   `propertyNames`, `minProperties`, `maxProperties`, `dependentRequired`, `dependentSchemas`.
/// - Arrays: `items`, `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`, `minContains`, `maxContains`.
/// - Strings: `minLength`, `maxLength` (in Unicode code points), `pattern` (NSRegularExpression, unanchored, compiled
///   once), `format` asserted for `date`, `time` and `date-time` (RFC 3339: time needs an offset; a leap second is only
///   valid at 23:59:60 UTC). Other formats are annotations.
/// - Numbers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`.
/// - Logic: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, boolean schemas `true`/`false`.
/// - References: `$ref` to JSON pointers (`#`, `#/$defs/x`, `#/components/schemas/X`, with `~0`/`~1` and
///   percent-escapes), to `$id`-identified schemas and `$anchor`s inside the same document; `$defs`/`definitions`.
///   Recursive schemas work; evaluation depth is bounded (256) so a ref cycle that never consumes the value fails
///   instead of looping.
/// - OpenAPI 3.0 compatibility, because OpenAI's openapi.json (3.1.0) still mixes 3.0 spellings in: `nullable: true`
///   (110 uses, beside 856 `anyOf [..., {"type": "null"}]`) makes a schema accept `null`, and a boolean
///   `exclusiveMinimum`/`exclusiveMaximum` makes `minimum`/`maximum` exclusive. `title`, `description`, `default`, `examples`, `$comment`, `$schema`, `discriminator`,
///   `deprecated`, `readOnly`, `x-*` and other unknown keywords are ignored.
///
/// Not supported (the suite runner's skip list names each affected case): remote `$ref`s (nothing is fetched,
/// including the 2020-12 meta-schema), `$dynamicRef`/`$dynamicAnchor`, `unevaluatedProperties`/`unevaluatedItems`,
/// `$vocabulary`, `content*`. An unresolvable `$ref` is a `JSONSchemaError` at compile time, never a silent pass.
///
/// Conformance: the official JSON-Schema-Test-Suite files for all keywords above, plus optional/format date, time and
/// date-time (41 files, 1,022 cases) pass, except 6 skipped cases: 4 need the remote meta-schema, 2 need
/// `unevaluatedProperties`.
package struct JSONSchema: Sendable {
    let compiled: CompiledSchema

    /// Compiles a schema. `root` is the document `$ref`s resolve against (defaults to `schema` itself), so a schema like
    /// `{"$ref": "#/components/schemas/CreateChatCompletionRequest"}` can be checked with root = the whole openapi.json.
    package init(_ schema: JSONValue, root: JSONValue? = nil) throws(JSONSchemaError) {
        compiled = try SchemaCompiler.compile(schema, root: root)
    }

    /// Every violation, each with its instance path; empty means valid.
    package func validate(_ instance: JSONValue) -> [JSONValidationError] {
        var evaluator = SchemaEvaluator(nodes: compiled.nodes, collecting: true)
        let valid = evaluator.evaluate(compiled.rootIndex, instance)
        if !valid, evaluator.errors.isEmpty {
            // Every failing keyword reports; this only guards the invariant that invalid never looks valid.
            return [JSONValidationError(path: "$", keyword: "schema", message: "value does not match the schema")]
        }
        return evaluator.errors
    }

    /// Stops at the first violation: the fast check when only the verdict matters.
    package func isValid(_ instance: JSONValue) -> Bool {
        var evaluator = SchemaEvaluator(nodes: compiled.nodes, collecting: false)
        return evaluator.evaluate(compiled.rootIndex, instance)
    }
}
