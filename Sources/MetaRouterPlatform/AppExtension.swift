/// Whether the process is an app extension (a widget, a share extension, a notification
/// service), where `UIApplication.shared` and background tasks are unavailable.
package enum AppExtension {
    /// Extensions are bundles ending in `.appex`.
    package static func isExtension(bundlePath: String) -> Bool {
        var path = Substring(bundlePath)
        while path.hasSuffix("/") { path = path.dropLast() }
        return path.lowercased().hasSuffix(".appex")
    }
}
