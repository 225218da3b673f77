/// The platform this build runs on, and the names the wire gives it. Only ``current`` is
/// chosen per platform; the names are plain tables, so every platform's row is tested on Linux.
package enum RuntimePlatform: CaseIterable, Sendable {
    case linux, iOS, macCatalyst, tvOS, watchOS, visionOS, macOS, other

    /// The platform of this build.
    package static let current: RuntimePlatform = {
        #if os(Linux)
        .linux
        #elseif targetEnvironment(macCatalyst)
        .macCatalyst
        #elseif os(iOS)
        .iOS
        #elseif os(tvOS)
        .tvOS
        #elseif os(watchOS)
        .watchOS
        #elseif os(visionOS)
        .visionOS
        #elseif os(macOS)
        .macOS
        #else
        .other
        #endif
    }()

    /// `context.os.name` on Apple platforms (a Mac Catalyst app runs on macOS); Linux reads
    /// its kernel's name instead.
    package var osName: String {
        switch self {
        case .linux: "Linux"
        case .iOS: "iOS"
        case .macCatalyst, .macOS: "macOS"
        case .tvOS: "tvOS"
        case .watchOS: "watchOS"
        case .visionOS: "visionOS"
        case .other: "unknown"
        }
    }

    /// `context.device.type`, in Segment's lower-case spelling (`tv` for Apple TV).
    package var deviceType: String {
        switch self {
        case .linux: "server"
        case .iOS: "ios"
        case .macCatalyst, .macOS: "macos"
        case .tvOS: "tv"
        case .watchOS: "watchos"
        case .visionOS: "visionos"
        case .other: "unknown"
        }
    }

    /// The platform in the `User-Agent` header (`metarouter-swift/<version> (<platform>)`).
    package var userAgentName: String {
        switch self {
        case .macCatalyst: "iOS"
        default: osName
        }
    }
}
