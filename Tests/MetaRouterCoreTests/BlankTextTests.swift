import Foundation
import Testing

@testable import MetaRouterCore

/// Blank event names and ids are refused at the call; the check runs on every call, so it is
/// written by hand — and must agree with Foundation's trimming, which it replaces.
@Suite struct BlankTextTests {
    @Test func agreesWithFoundationsTrimmingOnRandomText() {
        let pieces = [" ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2003}", "\u{2028}", "\u{3000}", "\u{0085}", "\u{200B}", "\u{FEFF}", "a", "é", "\u{301}", "Order"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(AnalyticsClient.isBlank(text) == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(text.debugDescription)")
        }
        #expect(AnalyticsClient.isBlank(""))
        #expect(!AnalyticsClient.isBlank("Product Viewed"))
    }
}
