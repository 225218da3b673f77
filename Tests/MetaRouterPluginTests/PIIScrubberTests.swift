import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// The scrubber on its own: what it replaces, what it leaves, and that no input can crash it.
@Suite struct PIIScrubberTests {
    private let scrubber = PIIScrubber()

    private func scrubbed(_ text: String, with scrubber: PIIScrubber = PIIScrubber()) -> String? {
        scrubber.scrub(["v": .string(text)]).object["v"]?.stringValue
    }

    @Test(arguments: [
        ("write to jane.doe+news@example.co.uk today", "write to <email> today"),
        ("a@b.io", "<email>"),
        ("two: x_y@mail.example.com, z%1@host-name.org.", "two: <email>, <email>."),
        ("<jane@example.com>", "<<email>>"),
    ])
    func emailAddressesBecomeATag(_ input: String, _ expected: String) {
        #expect(scrubbed(input) == expected)
    }

    @Test(arguments: ["@", "user@", "@example.com", "user@localhost", "user@example.c", "user@.com", "price @ 5.00", "a@b.123"])
    func thingsThatAreNotEmailAddressesStay(_ input: String) {
        #expect(scrubbed(input) == input)
    }

    @Test(arguments: [
        ("4111 1111 1111 1111", "<card>"),
        ("card 4111-1111-1111-1111 on file", "card <card> on file"),
        ("5500005555555559", "<card>"),
        ("amex 378282246310005.", "amex <card>."),
        ("6011111111111117 and 4012888888881881", "<card> and <card>"),
    ])
    func luhnValidCardNumbersBecomeATag(_ input: String, _ expected: String) {
        #expect(scrubbed(input) == expected)
    }

    /// Order numbers, timestamps and other long digit runs that fail the Luhn check, are too
    /// short or too long, or are part of a word, are left alone.
    @Test(arguments: [
        "4111 1111 1111 1112", "order 1700000000001", "411111111111", "41111111111111111111111", "ID4111111111111111",
        "4111111111111111X", "2026-11-23T10:00:00.000Z", "+1 (555) 010-9999",
    ])
    func digitRunsThatAreNotCardsStay(_ input: String) {
        #expect(scrubbed(input) == input)
    }

    @Test func nestedValuesAreScrubbedAndEverythingElseIsKept() {
        let input: [String: JSON] = [
            "plain": "hello", "count": 3, "price": 9.5, "flag": true, "missing": .null,
            "contact": ["email": "ann@example.com", "note": "call me"],
            "history": ["ok", ["card": "4111111111111111"], ["nested": ["deep": "bob@example.org"]]],
        ]
        let (output, count) = scrubber.scrub(input)
        #expect(count == 3)
        #expect(output["plain"] == "hello")
        #expect(output["count"] == 3)
        #expect(output["contact"]?["email"] == "<email>")
        #expect(output["contact"]?["note"] == "call me")
        #expect(output["history"]?.arrayValue?[0] == "ok")
        #expect(output["history"]?.arrayValue?[1]["card"] == "<card>")
        #expect(output["history"]?.arrayValue?[2]["nested"]?["deep"] == "<email>")
        #expect(scrubber.scrub(["a": "nothing here", "b": 1]).scrubbed == 0)
    }

    @Test func thePluginCountsWhatItScrubbedAndLeavesTraitsAloneUnlessAsked() {
        let plugin = PIIScrubPlugin()
        let scrubbed = plugin.execute(event: Event(type: .track, event: "Contact", properties: ["from": "a@b.io", "to": "c@d.io"]))
        #expect(scrubbed?.properties == ["from": "<email>", "to": "<email>"])
        let traits = plugin.execute(event: Event(type: .identify, userId: "u", traits: ["email": "a@b.io"]))
        #expect(traits?.traits == ["email": "a@b.io"])
        #expect(plugin.scrubbedCount == 2)
    }

    @Test func redactedKeysAndCustomPatternsApplyAtAnyDepth() {
        let custom = PIIScrubber(options: PIIScrubbingOptions(
            redactedKeys: ["Password", "ssn"], patterns: [PIIPattern("\\b\\d{3}-\\d{2}-\\d{4}\\b", replacement: "<ssn>")]))
        let (output, count) = custom.scrub([
            "PASSWORD": "hunter2", "profile": ["ssn": 123_456_789, "bio": "ssn 078-05-1120, mail me@example.com"],
        ])
        #expect(output["PASSWORD"] == "<redacted>")
        #expect(output["profile"]?["ssn"] == "<redacted>")
        #expect(output["profile"]?["bio"] == "ssn <ssn>, mail <email>")
        #expect(count == 3)
        #expect(PIIScrubber(options: PIIScrubbingOptions(patterns: [PIIPattern("([", replacement: "x")])).invalidPatterns == ["(["])
    }

    /// Hostile input: deep nesting is cut off at the depth limit (replaced, never walked),
    /// on a 512 KiB stack; random strings never crash and never keep an email or a valid
    /// card number the detector would find.
    @Test func hostileInputNeverCrashes() {
        var deep: JSON = "me@example.com"
        for level in 0..<300 { deep = level % 2 == 0 ? .array([deep]) : .object(["k": deep]) }
        let nested = deep
        let count = SmallStack.run { PIIScrubber().scrub(["root": nested]).scrubbed }
        #expect(count == 1)

        var generator = SeededGenerator(seed: 0x7069_6969)
        let alphabet = Array("ab@.-_+ 0123456789xyz.com4111é😀\u{0}")
        for _ in 0..<3_000 {
            let length = Int.random(in: 0..<60, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let output = scrubbed(text) ?? text
            let again = scrubbed(output) ?? output
            #expect(again == output, "scrubbing is not idempotent for \(text.debugDescription)")
        }
    }
}
