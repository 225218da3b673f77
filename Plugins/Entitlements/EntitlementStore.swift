import Foundation
import MetaRouterCore

/// The entitlement files of one instance, in a folder of their own (`entitlements/` in the
/// instance's directory): one file per user holding the last good set, and one per purchase
/// waiting to be handed over. It reads and removes only files named as it names them, and never
/// the folder. A damaged or foreign file is skipped, not trusted: each file names the user or
/// transaction it is for, and is served only for that one.
package struct EntitlementStore: Sendable {
    /// A user's last good set.
    package struct StoredSet: Sendable, Equatable {
        package var entitlements: Set<String>
        package var etag: String?
    }

    /// A purchase waiting to be handed over.
    package struct Purchase: Sendable, Equatable {
        package var transactionId: String
        package var evidence: String
        package var userId: String?
        package var anonymousId: String?
        /// Orders the queue: seconds since 1970 at the call.
        package var recordedAt: Double
    }

    /// Files larger than this are not read (a set is bounded far below it).
    package static let maximumFileBytes = 1 << 20
    /// Entitlement keys kept per set; an answer with more is refused.
    package static let maximumEntitlements = 10_000

    package let directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    // MARK: Sets

    package func loadSet(for userId: String) -> StoredSet? {
        guard let json = read(file(prefix: "user", key: userId)), json["userId"]?.stringValue == userId,
            let keys = Self.entitlements(from: json["entitlements"])
        else { return nil }
        return StoredSet(entitlements: keys, etag: json["etag"]?.stringValue)
    }

    package func storeSet(_ set: StoredSet, for userId: String) throws {
        let json: JSON = [
            "userId": .string(userId), "entitlements": .array(set.entitlements.sorted().map(JSON.string)),
            "etag": set.etag.map(JSON.string) ?? .null,
        ]
        try StorageFiles.writeAtomically(Data(JSONWriter.bytes(json)), to: file(prefix: "user", key: userId))
    }

    package func removeSet(for userId: String) {
        try? FileManager.default.removeItem(at: file(prefix: "user", key: userId))
    }

    /// The keys of an entitlements array: strings only, at most ``maximumEntitlements``;
    /// `nil` for anything else.
    package static func entitlements(from json: JSON?) -> Set<String>? {
        guard let items = json?.arrayValue, items.count <= maximumEntitlements else { return nil }
        var keys = Set<String>()
        for item in items {
            guard let key = item.stringValue else { return nil }
            keys.insert(key)
        }
        return keys
    }

    // MARK: Purchases

    /// Whether a purchase with this transaction id is waiting.
    package func hasPurchase(_ transactionId: String) -> Bool {
        FileManager.default.fileExists(atPath: file(prefix: "purchase", key: transactionId).path)
    }

    package func storePurchase(_ purchase: Purchase) throws {
        let json: JSON = [
            "transactionId": .string(purchase.transactionId), "evidence": .string(purchase.evidence),
            "userId": purchase.userId.map(JSON.string) ?? .null, "anonymousId": purchase.anonymousId.map(JSON.string) ?? .null,
            "recordedAt": .double(purchase.recordedAt),
        ]
        try StorageFiles.writeAtomically(Data(JSONWriter.bytes(json)), to: file(prefix: "purchase", key: purchase.transactionId))
    }

    package func removePurchase(_ transactionId: String) {
        try? FileManager.default.removeItem(at: file(prefix: "purchase", key: transactionId))
    }

    /// The purchases waiting, oldest first.
    package func loadPurchases() -> [Purchase] {
        ownFiles(prefix: "purchase").compactMap { url -> Purchase? in
            guard let json = read(url), let transactionId = json["transactionId"]?.stringValue,
                url == file(prefix: "purchase", key: transactionId), let evidence = json["evidence"]?.stringValue,
                let recordedAt = json["recordedAt"]?.doubleValue, recordedAt.isFinite
            else { return nil }
            return Purchase(
                transactionId: transactionId, evidence: evidence, userId: json["userId"]?.stringValue,
                anonymousId: json["anonymousId"]?.stringValue, recordedAt: recordedAt)
        }
        .sorted { $0.recordedAt < $1.recordedAt }
    }

    // MARK: Forget

    /// Removes every set and purchase file; returns how many there were.
    @discardableResult
    package func removeAll() -> Int {
        let files = ownFiles(prefix: "user") + ownFiles(prefix: "purchase")
        for url in files { try? FileManager.default.removeItem(at: url) }
        return files.count
    }

    // MARK: Files

    /// `<prefix>-<16 hex digits>.json`: the same FNV-1a 64 of the key's UTF-8 that names an
    /// instance's directory. Two keys that collide share a file, and the one not named inside it
    /// reads nothing.
    func file(prefix: String, key: String) -> URL {
        directory.appendingPathComponent("\(prefix)-\(StorageFiles.namespace(for: key)).json")
    }

    private func ownFiles(prefix: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            name.hasPrefix(prefix + "-") && name.hasSuffix(".json") && name.utf8.count == prefix.utf8.count + 22
                && name.dropFirst(prefix.count + 1).prefix(16).allSatisfy(\.isHexDigit)
        }
        .map { directory.appendingPathComponent($0) }
    }

    private func read(_ url: URL) -> JSON? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= Self.maximumFileBytes,
            let data = try? Data(contentsOf: url)
        else { return nil }
        return try? JSONParser.parse(data)
    }
}
