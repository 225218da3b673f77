import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// What `initialize` reads without Foundation's URL parser agrees with it: every text
/// ``PlainHost`` accepts, `URL(string:)` parses to the same scheme, host and port, and the
/// options' checks give the same answer either way.
@Suite struct PlainHostTests {
    /// Pieces a host text is made of: the plain grammar's own and what leaves it.
    private static let schemes = ["http://", "https://", "HTTPS://", "Http://", "ftp://", "http:/", "https:", "", "http//", "hTtP://"]
    private static let plainPieces = ["example", "com", "a", "ingest-1", "127", "0", "1", "255", "256", "localhost", "xn--bcher-kva", "-", "EXAMPLE", "0x7f", "999999"]
    private static let otherPieces = [
        ".", "..", "_", "~", "@", "user:pass@", "%41", "é", "ü", "[::1]", "[", "]", " ", "\t", "?", "#", "*", "+", "!", "$", "'", "(", ",", ";", "=",
        "\\", "^", "`", "{", "|", "}", "\"", "<", ">", "Ω", "🙂", "\u{0}",
    ]
    private static let tails = ["", ":", ":0", ":80", ":8080", ":65535", ":65536", ":123456", ":-1", ":8a", "/", "/v1", "/a/b_c~d", "/%20", "/?q", "/#f", "/a b", "/é", "//"]

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyPlainTextParsesAsFoundationParsesIt(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var plainCount = 0
        for step in 0..<20_000 {
            var text = Self.schemes[random.next(Self.schemes.count)]
            for _ in 0..<(1 + random.next(4)) {
                if random.next(4) == 0 { text += "." }
                let pieces = random.next(4) == 0 ? Self.otherPieces : Self.plainPieces
                text += pieces[random.next(pieces.count)]
            }
            for _ in 0..<random.next(3) { text += Self.tails[random.next(Self.tails.count)] }
            let options = InitOptions(writeKey: "k", ingestionHost: text)
            guard let plain = PlainHost(options.hostText) else { continue }
            plainCount += 1
            let url = URL(string: options.hostText)
            #expect(url != nil, "seed \(seed), step \(step): \(text.debugDescription) is plain but URL(string:) refuses it")
            guard let url else { continue }
            #expect(url.scheme?.lowercased() == plain.scheme, "seed \(seed), step \(step): \(text.debugDescription)")
            #expect(url.host?.lowercased() == plain.host.lowercased(), "seed \(seed), step \(step): \(text.debugDescription)")
            #expect(url.port == plain.port, "seed \(seed), step \(step): \(text.debugDescription)")
            #expect(options.hostURL != nil, "seed \(seed), step \(step): \(text.debugDescription)")
            var insecure = options
            insecure.allowInsecureHTTP = random.next(2) == 0
            #expect(
                insecure.validationErrors(host: (plain.scheme, plain.host)) == insecure.validationErrors(),
                "seed \(seed), step \(step): \(text.debugDescription)")
        }
        // The space reaches the plain grammar often, not by luck.
        #expect(plainCount > 1_000, "seed \(seed): only \(plainCount) plain texts")
    }

    @Test func plainTextIsReadAndOtherTextIsLeftToFoundation() throws {
        let plain = try #require(PlainHost("HTTPS://Ingest.Example.com:8443/v1/x_y~z"))
        #expect(plain.scheme == "https")
        #expect(plain.host == "Ingest.Example.com")
        #expect(plain.port == 8443)
        for text in ["https://user@h.example.com", "https://h.example.com?x", "http://[::1]:80", "https://h..example.com", "https://.h.com", "https://é.com", "https://h.com:", "https://h.com:65536", "ftp://h.com", "https://"] {
            #expect(PlainHost(text) == nil, "\(text)")
        }
        // Text that is not plain is still checked, by Foundation, at the call.
        let ftp = MetaRouter.Analytics.instance(for: InitOptions(writeKey: "plain-\(UUID())", ingestionHost: "ftp://h.example.com"))
        #expect(ftp.configurationError?.contains("is not an http(s) URL") == true)
    }
}
