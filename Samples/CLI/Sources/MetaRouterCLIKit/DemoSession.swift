import Foundation
import MetaRouter

/// An enrichment plugin of the kind an app team writes: it stamps every event with the
/// screen section it happened in, read from app state.
public final class AppSectionPlugin: Plugin {
    /// Runs after identity and context.
    public let type = PluginType.enrichment
    private let section: String

    /// Stamps `context.app_section = section`.
    public init(section: String) { self.section = section }

    /// Adds `context.app_section`.
    public func execute(event: Event) -> Event? {
        var event = event
        event.context["app_section"] = .string(section)
        return event
    }
}

/// The scripted session `metarouter demo` runs through the full default pipeline.
public enum DemoSession {
    /// The calls the session makes, as (type, name) pairs, in order — what the collector must
    /// receive.
    public static let expected: [(type: String, name: String?)] = [
        ("identify", nil), ("group", nil), ("screen", "Home"), ("track", "Product Viewed"),
        ("track", "Product Added"), ("page", "Checkout"), ("track", "Order Completed"), ("alias", nil),
        ("track", "Receipt Shared"),
    ]

    /// Runs the session against `host`, storing its files under `directory`, and returns once
    /// everything was delivered (or delivery gave up) and the client shut down.
    public static func run(host: URL, directory: URL, logSink: any LogSink) async {
        var options = InitOptions(writeKey: "demo-write-key-0001", ingestionHost: host, flushIntervalSeconds: 1)
        options.application = ApplicationInfo(name: "MetaRouter Demo", version: LibraryInfo.version, build: "1", namespace: "io.metarouter.demo")
        options.storageDirectory = directory
        options.keyValueStore = FileKeyValueStore(file: directory.appendingPathComponent("identity.json"))
        options.logSink = logSink
        options.plugins = { [AppSectionPlugin(section: "storefront")] }
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("user-42", traits: ["name": "Jane Doe", "plan": "pro", "signed_up": Date(timeIntervalSince1970: 1_767_225_600)])
        analytics.group("acme-corp", traits: ["name": "Acme Corp", "employees": 120])
        analytics.screen("Home", properties: ["category": "navigation"])
        analytics.track("Product Viewed", properties: ["sku": "SHOE-123", "price": 19.99, "currency": "EUR"])
        analytics.track("Product Added", properties: ["sku": "SHOE-123", "quantity": 2, "bad_value": Double.nan])
        analytics.page("Checkout", properties: ["url": "/checkout", "referrer": "/cart"])
        analytics.track("Order Completed", properties: [
            "order_id": "A-1001", "total": 39.98, "items": [["sku": "SHOE-123", "quantity": 2]],
        ])
        analytics.alias("customer-42")
        analytics.track("Receipt Shared", properties: ["channel": "email"])
        await analytics.flushAndWait()
        await analytics.shutdown()
    }

    /// Whether `events` are exactly the scripted session, in order.
    public static func matches(_ events: [JSON]) -> Bool {
        guard events.count == expected.count else { return false }
        return zip(events, expected).allSatisfy { event, call in
            event["type"]?.stringValue == call.type && (call.name == nil || (event["event"] ?? event["name"])?.stringValue == call.name)
        }
    }
}
