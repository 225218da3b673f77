#if canImport(UIKit) || canImport(AppKit)
import Foundation
import MetaRouterCore
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Apple-only facts for `context`; thin glue, the assembly is shared code.
enum ApplePlatform {
    static var osName: String {
        #if os(iOS)
        return "iOS"
        #elseif os(tvOS)
        return "tvOS"
        #elseif os(watchOS)
        return "watchOS"
        #elseif os(visionOS)
        return "visionOS"
        #else
        return "macOS"
        #endif
    }

    static var deviceType: String {
        #if os(iOS)
        return "ios"
        #elseif os(tvOS)
        return "tv"
        #elseif os(watchOS)
        return "watchos"
        #else
        return "macos"
        #endif
    }

    /// Screen size in points and its scale, read on the main thread when we are on it.
    static func screen() -> [String: JSON]? {
        guard Thread.isMainThread else { return nil }
        return MainActor.assumeIsolated {
            #if os(iOS) || os(tvOS)
            let screen = UIScreen.main
            return [
                "width": .double(Double(screen.bounds.width)), "height": .double(Double(screen.bounds.height)),
                "density": .double(Double(screen.scale)),
            ]
            #elseif os(macOS)
            guard let screen = NSScreen.main else { return nil }
            return [
                "width": .double(Double(screen.frame.width)), "height": .double(Double(screen.frame.height)),
                "density": .double(Double(screen.backingScaleFactor)),
            ]
            #else
            return nil
            #endif
        }
    }
}
#endif
