import Foundation

#if canImport(Darwin)
import Darwin
#endif

/// A clock whose ``AnalyticsClock/uptime()`` readings can be compared across processes while
/// the device stays up: it names the boot they belong to. The disk log uses it to tell how
/// long a record has been on the device without trusting the wall clock.
package protocol BootSessionClock: AnalyticsClock {
    /// An identifier of the current boot, or `nil` when it cannot be known.
    var bootSession: String? { get }
}

extension SystemClock: BootSessionClock {
    /// The system's boot identifier: `/proc/sys/kernel/random/boot_id` on Linux,
    /// `kern.bootsessionuuid` on Apple platforms; `nil` when neither can be read (a sandbox).
    package var bootSession: String? { BootSession.current }
}

/// The identifier of this boot, read once.
package enum BootSession {
    package static let current: String? = read()

    private static func read() -> String? {
        #if canImport(Darwin)
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1, size < 256 else { return nil }
        var bytes = [CChar](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
        let text = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
        #else
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id"), data.count < 256 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
        #endif
    }
}
