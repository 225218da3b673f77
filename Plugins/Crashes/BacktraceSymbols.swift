#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backtrace_symbols(3)` for addresses of this process: `path(symbol+0x1f) [0x…]` on Linux,
/// the numbered form on Apple platforms — the forms ``StackFrames`` parses. Normal code only
/// (it allocates); the crash handler never calls it.
enum BacktraceSymbols {
    private typealias Function = @convention(c) (UnsafePointer<UnsafeMutableRawPointer?>?, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

    /// A line per address; `nil` where the address is `nil` or the platform gives no line.
    static func lines(for addresses: [UnsafeMutableRawPointer?]) -> [String?] {
        let present = addresses.compactMap { $0 }
        guard !present.isEmpty, let symbolize = function else { return addresses.map { _ in nil } }
        var named: [String] = []
        present.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafeMutableRawPointer?.self) { rebound in
                guard let lines = symbolize(rebound.baseAddress, Int32(rebound.count)) else { return }
                defer { free(lines) }
                named = (0..<rebound.count).map { lines[$0].map { String(cString: $0) } ?? "?" }
            }
        }
        guard named.count == present.count else { return addresses.map { _ in nil } }
        var next = named.makeIterator()
        return addresses.map { $0 == nil ? nil : next.next() }
    }

    private static let function: Function? = {
        #if canImport(Darwin)
        return { buffer, count in backtrace_symbols(buffer, count) }
        #else
        guard let symbol = dlsym(nil, "backtrace_symbols") else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
        #endif
    }()
}
