#if canImport(UIKit) || canImport(AppKit)
import Foundation
import MetaRouterCore
import MetaRouterPlatform
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit
#endif

/// Apple-only facts for `context`; thin glue, the assembly is shared code.
enum ApplePlatform {
    static var osName: String {
        #if targetEnvironment(macCatalyst)
        return "macOS"
        #elseif os(iOS)
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
        #if targetEnvironment(macCatalyst)
        return "macos"
        #elseif os(iOS)
        return "ios"
        #elseif os(tvOS)
        return "tv"
        #elseif os(watchOS)
        return "watchos"
        #elseif os(visionOS)
        return "visionos"
        #else
        return "macos"
        #endif
    }

    /// Reads the screen size in points and its scale on the main actor and hands it to
    /// `completion` (not called where there is no screen to read). A window scene may connect
    /// only after launch, so an empty read is tried again, four times a second for 5 seconds.
    static func readScreen(_ completion: @escaping @Sendable ([String: JSON]) -> Void) {
        Task { @MainActor in
            for _ in 0..<20 {
                if let screen = mainScreen() { return completion(screen) }
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    @MainActor
    private static func mainScreen() -> [String: JSON]? {
        #if os(iOS) || os(tvOS)
        // The screen of a connected window scene: `UIScreen.main` is deprecated from iOS 16.
        let scenes = UIKitApplication.shared()?.connectedScenes ?? []
        guard let screen = scenes.lazy.compactMap({ ($0 as? UIWindowScene)?.screen }).first else { return nil }
        return [
            "width": .double(Double(screen.bounds.width)), "height": .double(Double(screen.bounds.height)),
            "density": .double(Double(screen.scale)),
        ]
        #elseif os(macOS) && !targetEnvironment(macCatalyst)
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
#endif
