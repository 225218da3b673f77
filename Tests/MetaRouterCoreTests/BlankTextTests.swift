import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Blank event names and ids are refused at the call, and options are trimmed at
/// `initialize`; the checks are written by hand — and must agree with Foundation's trimming,
/// which they replace.
@Suite struct BlankTextTests {
    @Test func agreesWithFoundationsTrimmingOnRandomText() {
        let pieces = [" ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2003}", "\u{2028}", "\u{3000}", "\u{0085}", "\u{200B}", "\u{FEFF}", "a", "é", "\u{301}", "Order"]
        var generator = SeededGenerator(seed: 0x626c_616e)
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(text.isBlank == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(text.debugDescription)")
            #expect(text.trimmingBlanks() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
        #expect("".isBlank && "".trimmingBlanks().isEmpty)
        #expect(!"Product Viewed".isBlank)
        #expect(" https://in.example.com/\n".trimmingBlanks() == "https://in.example.com/")
    }
}
