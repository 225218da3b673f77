import Foundation

/// A call stack as `Thread.callStackSymbols` gives it, reduced to what stays the same across
/// launches: each frame's module (file name) and symbol, addresses and offsets left out. A
/// frame without a symbol keeps its offset within its module, which an address-space layout
/// slide does not change.
package struct StackFrames: Sendable, Hashable {
    /// `module symbol` per frame, innermost first.
    package var frames: [String]

    /// Frames kept at most.
    static let maximumFrames = 64

    /// Parses `symbols` in the Linux form (`/path/libX.so(symbol+0x1f) [0x…]`) or the Apple form
    /// (`3   Module   0x000… symbol + 31`), leaving out the SDK's own frames at the top (the
    /// capture call) unless told not to (a crash's frames start where it crashed).
    package init(symbols: [String], droppingOwnFrames: Bool = true) {
        var parsed = symbols.compactMap(Self.frame(from:))
        while droppingOwnFrames, let first = parsed.first, Self.isOwnFrame(first) { parsed.removeFirst() }
        frames = Array(parsed.prefix(Self.maximumFrames))
    }

    /// The current thread's stack, from the caller of the SDK's capture function on.
    package static func current() -> StackFrames { StackFrames(symbols: Thread.callStackSymbols) }

    /// A hash of the top five frames (FNV-1a 64, hex): the same code path gives the same
    /// fingerprint across launches.
    package var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in frames.prefix(5).joined(separator: "\n").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The symbol without what changes between two captures on one code path: the suffix an
    /// async function's partial functions carry (`TY0_`, `TQ1_`: the same function resumed
    /// after a different `await`).
    static func stable(_ symbol: Substring) -> String {
        var text = String(symbol)
        if text.hasSuffix("_"), let marker = text.range(of: "T[YQ][0-9]+_$", options: .regularExpression) {
            text.removeSubrange(marker)
        }
        return text
    }

    static func frame(from line: String) -> String? {
        if let open = line.firstIndex(of: "("), let close = line[open...].firstIndex(of: ")") {
            let module = line[..<open].split(separator: "/").last.map(String.init) ?? ""
            let inside = line[line.index(after: open)..<close]
            let symbol = inside.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return symbol.isEmpty ? "\(module) \(inside)" : "\(module) \(stable(symbol))"
        }
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 4, parts[2].hasPrefix("0x") else { return nil }
        let symbolParts = parts[3...].prefix { $0 != "+" }
        return "\(parts[1]) \(stable(Substring(symbolParts.joined(separator: " "))))"
    }

    private static func isOwnFrame(_ frame: String) -> Bool {
        frame.contains("callStackSymbols") || frame.contains("10MetaRouter") || frame.contains("16MetaRouterErrors")
            || frame.contains("14MetaRouterCore")
    }
}
