import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

/// `metarouter entitlements serve`'s server with the SDK's own entitlement client over loopback
/// HTTP: the file's set for the identified user, the file re-read, a purchase granting a key
/// once, and no set for a request without credentials.
@Suite struct EntitlementServerTests {
    @Test func theSDKReadsTheFileAndAPurchaseGrantsItsKeyOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-entitlements-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("entitlements.json")
        try Data(#"{"users": {"user-42": ["pro"]}}"#.utf8).write(to: file)
        let server = EntitlementServer(file: file.path)
        let url = try await server.start()

        var options = InitOptions(writeKey: "cli-entitlements", ingestionHost: url.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.appendingPathComponent("sdk")
        options.entitlements = EntitlementOptions()
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("user-42")
        #expect(try await analytics.refreshEntitlements() == ["pro"])

        try Data(#"{"users": {"user-42": ["pro", "beta"]}}"#.utf8).write(to: file)
        #expect(try await analytics.refreshEntitlements() == ["pro", "beta"])

        analytics.recordPurchase(transactionId: "2000000123", evidence: "grant:export")
        let deadline = Date().addingTimeInterval(60)
        while analytics.entitlements() != ["pro", "beta", "export"], Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(analytics.isEntitled("export"))
        analytics.recordPurchase(transactionId: "2000000123", evidence: "grant:export")
        _ = try await analytics.refreshEntitlements()
        #expect(server.requests.purchases == 1)
        await analytics.shutdown(timeout: 5)
        await server.stop()
    }

    @Test func aFileThatIsNotAUserTableIsRefused() {
        #expect(EntitlementServer.users(in: #"{"users": {"a": ["x"]}}"#) == ["a": ["x"]])
        #expect(EntitlementServer.users(in: #"{"users": {"a": [1]}}"#) == nil)
        #expect(EntitlementServer.users(in: "[]") == nil)
    }
}
