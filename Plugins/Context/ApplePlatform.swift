#if canImport(UIKit) || canImport(AppKit)
import MetaRouterPlatform
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit
#endif

/// Apple-only glue for `context`: the main screen. Retrying and the JSON are shared code
/// (`ScreenReading`), tested on Linux.
enum ApplePlatform {
    /// The screen of a connected window scene (`UIScreen.main` is deprecated from iOS 16), or
    /// AppKit's main screen; `nil` before one connects, and where there is none to read.
    @MainActor
    static func mainScreen() -> ScreenSize? {
        #if os(iOS) || os(tvOS)
        let scenes = UIKitApplication.shared()?.connectedScenes ?? []
        return scenes.lazy.compactMap { ($0 as? UIWindowScene)?.screen }.first.map {
            ScreenSize(width: Double($0.bounds.width), height: Double($0.bounds.height), scale: Double($0.scale))
        }
        #elseif os(macOS) && !targetEnvironment(macCatalyst)
        return NSScreen.main.map { ScreenSize(width: Double($0.frame.width), height: Double($0.frame.height), scale: Double($0.backingScaleFactor)) }
        #else
        return nil
        #endif
    }
}
#endif
