import Foundation

/// Bytes the files under a directory hold, for the tenants' disk budget: a bounded walk
/// (100,000 entries at most) that reads sizes and opens nothing.
enum DirectorySize {
    static func bytes(in directory: URL) -> Int {
        guard
            let walk = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey], options: [], errorHandler: { _, _ in true })
        else { return 0 }
        var total = 0
        var seen = 0
        while let url = walk.nextObject() as? URL, seen < 100_000 {
            seen += 1
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total = total.addingReportingOverflow(max(0, values.fileSize ?? 0)).partialValue
        }
        return total
    }
}
