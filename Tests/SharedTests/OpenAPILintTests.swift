import Testing
@testable import Shared

/// openapi/openapi.json as other people's generators read it (issue 46): valid OpenAPI is not
/// enough. `openapi-python-client` wrote a syntax error for a boolean `const`, dropped a path
/// whose item was a `$ref`, dropped models behind a `$ref` into another schema's properties, and
/// parsed an array without `items` as nothing, and silently dropped a schema whose `anyOf` only
/// named required members. Each construct is refused here, wherever it is.
@Suite struct OpenAPILintTests {
    struct Finding: CustomStringConvertible, Equatable {
        let path: String
        let rule: String
        var description: String { "\(path): \(rule)" }
    }

    static func findings(_ document: JSONValue) -> [Finding] {
        var found: [Finding] = []
        func walk(_ node: JSONValue, _ path: String) {
            if let members = node.objectValue {
                if let value = node["const"], value.boolValue != nil {
                    found.append(Finding(path: path, rule: "a boolean const (write {\"type\": \"boolean\", \"enum\": [...]})"))
                }
                if let ref = node["$ref"]?.stringValue {
                    let parts = ref.split(separator: "/", omittingEmptySubsequences: false)
                    let kinds = ["schemas", "responses", "parameters", "headers", "securitySchemes", "requestBodies"]
                    if !(parts.count == 4 && parts[0] == "#" && parts[1] == "components" && kinds.contains(String(parts[2]))) {
                        found.append(Finding(path: path, rule: "a $ref not to a component of its own (\(ref))"))
                    }
                }
                for key in ["anyOf", "oneOf"] {
                    if let branches = node[key]?.arrayValue, !branches.isEmpty,
                        branches.allSatisfy({ $0.objectValue?.map(\.0) == ["required"] })
                    {
                        found.append(Finding(path: path, rule: "an \(key) of required members alone (the generator drops the schema)"))
                    }
                }
                let type = node["type"]
                let isArray = type?.stringValue == "array" || (type?.arrayValue?.contains { $0.stringValue == "array" } ?? false)
                if isArray, node["items"] == nil, node["prefixItems"] == nil {
                    found.append(Finding(path: path, rule: "an array without items"))
                }
                for (name, child) in members { walk(child, path + "/" + name) }
            } else if let elements = node.arrayValue {
                for (i, child) in elements.enumerated() { walk(child, path + "[\(i)]") }
            }
        }
        walk(document, "")
        if let paths = document["paths"]?.objectValue {
            for (name, item) in paths where item["$ref"] != nil {
                found.append(Finding(path: "/paths/" + name, rule: "a path item that is a $ref (put it inline)"))
            }
        }
        return found
    }

    @Test func theDocumentHoldsToTheGeneratorsRules() throws {
        #expect(Self.findings(try OpenAPIDriftTests.document()) == [])
        let description = try OpenAPIDriftTests.text("openapi/openapi.json")
        #expect(description.contains("ignore members they do not know"), "the document says answers may gain members")
    }

    /// Each rule finds what it is for.
    @Test func eachRuleFindsItsConstruct() throws {
        let bad = try JSONParser.parse(Array(#"""
            {"paths": {"/a": {"$ref": "#/components/pathItems/A"}},
             "components": {"schemas": {
               "B": {"type": "object", "properties": {"x": {"const": true}, "y": {"$ref": "#/components/schemas/C/properties/z"},
                     "list": {"type": "array"}, "maybe": {"type": ["array", "null"]}, "ok": {"type": "array", "items": {}}}},
               "D": {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}}}
            """#.utf8))
        let rules = Self.findings(bad).map(\.rule)
        #expect(rules.filter { $0.hasPrefix("a boolean const") }.count == 1)
        #expect(rules.filter { $0.hasPrefix("a $ref not to a component") }.count == 2)
        #expect(rules.filter { $0 == "an array without items" }.count == 2)
        #expect(rules.filter { $0.hasPrefix("a path item that is a $ref") }.count == 1)
        #expect(rules.filter { $0.hasPrefix("an anyOf of required members alone") }.count == 1)
    }
}
