/// The name and version this library reports in `context.library` and `User-Agent`.
public enum LibraryInfo {
    /// `metarouter-swift`.
    package static let name = "metarouter-swift"
    /// The library's version.
    public static let version = "0.1.0"
}
