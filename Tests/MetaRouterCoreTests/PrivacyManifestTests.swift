import Foundation
import Testing

/// The privacy manifest App Store review reads: a valid property list that gives a reason for
/// every required-reason API the sources call.
@Suite struct PrivacyManifestTests {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func sources() throws -> String {
        var text = ""
        for folder in ["Sources", "Plugins"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" { text += try String(contentsOf: file, encoding: .utf8) }
        }
        return text
    }

    @Test func everyRequiredReasonAPIInUseHasAReason() throws {
        let data = try Data(contentsOf: root.appendingPathComponent("Sources/MetaRouterCore/PrivacyInfo.xcprivacy"))
        let manifest = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        let declared = (manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? []).reduce(into: [String: [String]]()) {
            $0[$1["NSPrivacyAccessedAPIType"] as? String ?? ""] = $1["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
        }
        let code = try sources()
        let categories: [(category: String, reason: String, markers: [String])] = [
            ("NSPrivacyAccessedAPICategoryUserDefaults", "CA92.1", ["UserDefaults"]),
            ("NSPrivacyAccessedAPICategoryFileTimestamp", "C617.1", ["fstat(", " stat(", "lstat(", "modificationDate", "creationDate"]),
            ("NSPrivacyAccessedAPICategorySystemBootTime", "35F9.1", ["systemUptime", "mach_absolute_time"]),
            ("NSPrivacyAccessedAPICategoryDiskSpace", "E174.1", ["volumeAvailableCapacity", "statfs(", "systemFreeSize"]),
        ]
        for entry in categories where entry.markers.contains(where: code.contains) {
            #expect(declared[entry.category]?.contains(entry.reason) == true, "\(entry.category) is used but not declared")
        }
    }
}
