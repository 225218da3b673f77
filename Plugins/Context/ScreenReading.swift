import MetaRouterCore

/// The main screen's size in points and its scale, as `context.screen` carries them.
package struct ScreenSize: Sendable, Equatable {
    package var width: Double
    package var height: Double
    package var scale: Double

    /// A size in points and a scale.
    package init(width: Double, height: Double, scale: Double) {
        self.width = width
        self.height = height
        self.scale = scale
    }

    /// `{width, height, density}`.
    package var json: [String: JSON] { ["width": .double(width), "height": .double(height), "density": .double(scale)] }
}

/// Reads the screen on the main actor, where UIKit and AppKit keep it. A window scene may
/// connect only after launch, so a read that finds no screen is tried again.
package enum ScreenReading {
    /// What reads the screen here: the Apple glue, or `nil` where there is no screen (Linux).
    package static var platformReader: (@MainActor @Sendable () -> ScreenSize?)? {
        #if canImport(UIKit) || canImport(AppKit)
        ApplePlatform.mainScreen
        #else
        nil
        #endif
    }

    /// Calls `read` on the main actor until it answers, at most `attempts` times,
    /// `intervalNanoseconds` apart, and hands its answer to `completion` (never called when
    /// every read comes back empty). The task ends after the answer or the last attempt.
    @discardableResult
    package static func poll(
        attempts: Int, intervalNanoseconds: UInt64, read: @escaping @MainActor @Sendable () -> ScreenSize?,
        completion: @escaping @Sendable (ScreenSize) -> Void
    ) -> Task<Void, Never> {
        Task { @MainActor in
            for attempt in 0..<max(0, attempts) {
                if let screen = read() { return completion(screen) }
                if attempt + 1 < attempts { try? await Task.sleep(nanoseconds: intervalNanoseconds) }
            }
        }
    }
}
