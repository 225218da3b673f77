import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTrackingPlan

/// The tracking plan's JSON Schema subset against the official JSON Schema Test Suite
/// (json-schema-org/JSON-Schema-Test-Suite, `tests/draft7`, commit
/// 44401e0c046704b476ec9d2e2fccdaee618f259d): every group whose schema uses only the keywords
/// `Docs/Privacy.md` lists — 87 groups, 336 cases, written down in our own form in
/// `Fixtures/jsonschema_suite_draft7.json` as `(schema, [instance, valid])`. Groups that use
/// other keywords (`allOf`, `$ref`, `format`, `uniqueItems`, `patternProperties`, …) and the
/// suite's `optional/` folder are out of scope: the plan ignores those keywords.
@Suite struct JSONSchemaSuiteTests {
    private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/jsonschema_suite_draft7.json")

    @Test func everyInScopeCaseOfTheSuiteAgrees() throws {
        let root = try JSONParser.parse(String(contentsOf: fixture, encoding: .utf8))
        let groups = try #require(root["groups"]?.arrayValue)
        #expect(groups.count == 87)
        let (cases, disagreements) = SmallStack.run { () -> (Int, [String]) in
            var cases = 0
            var wrong: [String] = []
            for group in groups {
                guard let keyword = group["keyword"]?.stringValue, let schemaJSON = group["schema"], let list = group["cases"]?.arrayValue else {
                    wrong.append("malformed group")
                    continue
                }
                let schema: JSONSchema
                do { schema = try JSONSchema(schemaJSON) } catch {
                    wrong.append("\(keyword): \(JSONWriter.string(schemaJSON)) did not compile: \(error)")
                    continue
                }
                for pair in list {
                    guard let instance = pair.arrayValue?.first, let valid = pair.arrayValue?.last?.boolValue else {
                        wrong.append("\(keyword): malformed case")
                        continue
                    }
                    cases += 1
                    if schema.accepts(instance) != valid {
                        wrong.append("\(keyword): \(JSONWriter.string(schemaJSON)) on \(JSONWriter.string(instance)) should be \(valid)")
                    }
                }
            }
            return (cases, wrong)
        }
        #expect(cases == 336)
        #expect(disagreements == [])
    }

    /// The suite's Unicode `const` cases, spelled out: strings compare by code points.
    @Test func lookAlikeStringsAreDifferentConstants() throws {
        let combining = try JSONSchema(["const": "\u{E4}"])
        #expect(combining.accepts("\u{E4}"))
        #expect(!combining.accepts("a\u{308}"))
        let micro = try JSONSchema(["const": "\u{3BC}"])
        #expect(!micro.accepts("\u{B5}"))
    }
}
