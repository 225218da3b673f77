import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterTrackingPlan

/// The tracking plan's JSON Schema subset agrees with a reference validator
/// (python-jsonschema's Draft7Validator) on every case of `Fixtures/plan_cases.json`: each
/// supported keyword, nested objects, arrays of objects, integers against numbers and string
/// lengths in code points, patterns in and out of the linear matcher's subset, plus 600
/// generated cases. `Fixtures/make_plan_cases.py` writes it.
@Suite struct JSONSchemaAgreementTests {
    private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/plan_cases.json")

    @Test func verdictsAgreeWithTheReferenceValidator() throws {
        let root = try JSONParser.parse(String(contentsOf: fixture, encoding: .utf8))
        let cases = try #require(root["cases"]?.arrayValue)
        #expect(cases.count > 750)
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
        for _ in 0..<300 { deep = ["properties": ["x": deep]] }
        let nested = deep
        let refused = SmallStack.run { (try? JSONSchema(nested)) == nil }
        #expect(refused)
        #expect((try? JSONSchema(["type": "colour"])) == nil)
        #expect((try? JSONSchema(["pattern": "(["])) == nil)
        #expect((try? JSONSchema(["minLength": -1])) == nil)
        #expect((try? JSONSchema("schema")) == nil)
    }

    /// The linear pattern matcher agrees with `NSRegularExpression` on the patterns it takes,
    /// over generated strings; patterns beyond its subset are left to `NSRegularExpression`.
    @Test func theLinearPatternMatcherAgreesWithNSRegularExpression() throws {
        let patterns = [
            "^[A-Z]{3}-\\d+$", "ab", "^a", "b$", "[0-9]", "^[a-z]+$", "x{2}", "^[ab]{1,2}$", "a.b", "^\\d*$", "[^a]",
            "^x?a+$", "\\w{2}", "^[a-z0-9_-]{3,16}$", "\\.", "^\\s*$", "[\\d.]+", "^a{2,}$", "^$", "\\W",
        ]
        var generator = SeededGenerator(seed: 0x7363_6865)
        let alphabet = Array("abxAZ09-_. \té😀")
        for pattern in patterns {
            let simple = try #require(SimplePattern(pattern), "\(pattern) should be in the subset")
            let expression = try NSRegularExpression(pattern: pattern)
            for _ in 0..<300 {
                let text = String((0..<Int.random(in: 0..<8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                let reference = expression.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
                #expect(simple.matches(text) == reference, "\(pattern) on \(text.debugDescription)")
            }
        }
        for outside in ["(a|b)", "a+?", "\\bword", "(\\d)\\1", "a{64}", "[[:alpha:]]", "a$b"] {
            #expect(SimplePattern(outside) == nil, "\(outside) is beyond the subset")
        }
    }
}
