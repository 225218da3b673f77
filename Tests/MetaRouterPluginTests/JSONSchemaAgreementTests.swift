import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// The tracking plan's JSON Schema subset agrees with a reference validator
/// (python-jsonschema's Draft7Validator) on every case of `Fixtures/plan_cases.json`: each
/// supported keyword, nested objects, arrays of objects, integers against numbers and string
/// lengths in code points, plus 600 generated cases. `Fixtures/make_plan_cases.py` writes it.
@Suite struct JSONSchemaAgreementTests {
    private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/plan_cases.json")

    @Test func verdictsAgreeWithTheReferenceValidator() throws {
        let root = try JSONParser.parse(String(contentsOf: fixture, encoding: .utf8))
        let cases = try #require(root["cases"]?.arrayValue)
        #expect(cases.count > 700)
        let disagreements = SmallStack.run { () -> [String] in
            var wrong: [String] = []
            for item in cases {
                guard let schemaJSON = item["schema"], let instance = item["instance"], let expected = item["valid"]?.boolValue else {
                    wrong.append("malformed case")
                    continue
                }
                do {
                    let verdict = try JSONSchema(schemaJSON).accepts(instance)
                    if verdict != expected { wrong.append("\(JSONWriter.string(schemaJSON)) on \(JSONWriter.string(instance)): \(verdict)") }
                } catch {
                    wrong.append("\(JSONWriter.string(schemaJSON)) did not compile: \(error)")
                }
            }
            return wrong
        }
        #expect(disagreements == [])
    }

    @Test func hostileSchemasAreRefusedNotCrashedOn() {
        var deep: JSON = ["type": "string"]
        for _ in 0..<10_000 { deep = ["properties": ["x": deep]] }
        let nested = deep
        let refused = SmallStack.run { (try? JSONSchema(nested)) == nil }
        #expect(refused)
        #expect((try? JSONSchema(["type": "colour"])) == nil)
        #expect((try? JSONSchema(["pattern": "(["])) == nil)
        #expect((try? JSONSchema(["minLength": -1])) == nil)
        #expect((try? JSONSchema("schema")) == nil)
    }
}
