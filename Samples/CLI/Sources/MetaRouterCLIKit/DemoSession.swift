import Foundation
import MetaRouter
import NIOConcurrencyHelpers

/// An enrichment plugin of the kind an app team writes: it stamps every event with the
/// screen section it happened in, read from app state.
public final class AppSectionPlugin: Plugin {
    /// Runs after identity and context.
    public let type = PluginType.enrichment
    private let section: String

    /// Stamps `context.app_section = section`.
    public init(section: String) { self.section = section }

    /// Adds `context.app_section`.
    public func execute(event: consuming Event) -> Event? {
        event.context["app_section"] = .string(section)
        return event
    }
}

/// The scripted session `metarouter demo` runs through the full default pipeline.
public enum DemoSession {
    /// The calls the session makes, as (type, name) pairs, in order — what the collector must
    /// receive (the lifecycle's events included; the rule set drops "Debug Ping").
    public static let expected: [(type: String, name: String?)] = [
        ("track", "Application Installed"), ("track", "Application Opened"),
        ("identify", nil), ("group", nil), ("screen", "Home"), ("track", "Product Viewed"),
        ("track", "Product Added"), ("page", "Checkout"), ("track", "Order Completed"), ("alias", nil),
        ("track", "Receipt Shared"), ("track", "Application Backgrounded"),
    ]

    /// The transform rules the demo runs: the seed's "fix a misnamed property" LivePlugin as a
    /// rule, and a filter.
    public static let rules = """
        ruleset "demo" version 1
        rule "fix a misnamed property" {
            when exists(properties.productID)
            move properties.productID to properties.product_id
        }
        rule "no debug events" {
            when match(event, "Debug *")
            drop
        }
        """

    /// The remote rule set the demo serves from its own rule server: version 1 at the start,
    /// version 2 from the middle of the session on — a rule changing without an app update.
    public static func remoteRules(version: Int) -> String {
        """
        ruleset "remote" version \(version)
        rule "stamp the rule version" {
            only track, screen, page
            set properties.rules_version = \(version)
        }
        """
    }

    /// The calls (by index into ``expected``) made once version 2 of the remote rules is in force.
    public static let afterRuleChange = 7

    /// Runs the session against `host`, storing its files under `directory`, and returns once
    /// everything was delivered (or delivery gave up) and the client shut down.
    public static func run(host: URL, directory: URL, logSink: any LogSink) async {
        let served = NIOLockedValueBox(remoteRules(version: 1))
        let ruleServer = RuleServer { served.withLockedValue { $0 } }
        let rulesURL = try? await ruleServer.start()
        var options = InitOptions(writeKey: "demo-write-key-0001", ingestionHost: host, flushIntervalSeconds: 1)
        options.application = ApplicationInfo(name: "MetaRouter Demo", version: LibraryInfo.version, build: "1", namespace: "io.metarouter.demo")
        options.storageDirectory = directory
        options.logSink = logSink
        options.trackLifecycleEvents = true
        let lifecycle = ManualLifecycleSource()
        options.lifecycleSource = lifecycle
        let rules = try? RuleSetLoader.load(Self.rules, format: .text)
        options.plugins = {
            [AppSectionPlugin(section: "storefront")] + (rules.map { [TransformPlugin(ruleSet: $0, stage: .before)] } ?? [])
        }
        // Refreshed every quarter of a second, so the change shows within the session.
        options.remoteRules = rulesURL.map { RemoteRulesOptions(url: $0, refreshInterval: 0.25) }
        let analytics = MetaRouter.Analytics.instance(for: options)
        await analytics.performAndWait { _ in }
        await waitForRemoteRules(version: 1, analytics)
        lifecycle.send(.launched(inBackground: false))
        analytics.identify("user-42", traits: ["name": "Jane Doe", "plan": "pro", "signed_up": Date(timeIntervalSince1970: 1_767_225_600)])
        analytics.group("acme-corp", traits: ["name": "Acme Corp", "employees": 120])
        analytics.screen("Home", properties: ["category": "navigation"])
        analytics.track("Product Viewed", properties: ["productID": "SHOE-123", "price": 19.99, "currency": "EUR"])
        analytics.track("Debug Ping", properties: ["build": "local"])
        analytics.track("Product Added", properties: ["sku": "SHOE-123", "quantity": 2, "bad_value": Double.nan])
        served.withLockedValue { $0 = remoteRules(version: 2) }
        await analytics.performAndWait { _ in }
        await waitForRemoteRules(version: 2, analytics)
        analytics.page("Checkout", properties: ["url": "/checkout", "referrer": "/cart"])
        analytics.track("Order Completed", properties: [
            "order_id": "A-1001", "total": 39.98, "items": [["sku": "SHOE-123", "quantity": 2]],
        ])
        analytics.alias("customer-42")
        analytics.track("Receipt Shared", properties: ["channel": "email"])
        lifecycle.send(.didEnterBackground)
        await analytics.performAndWait { _ in }
        await analytics.flushAndWait()
        await analytics.shutdown()
        await ruleServer.stop()
    }

    /// Whether `events` are exactly the scripted session, in order, each track, screen and page
    /// stamped by the remote rule version in force when it was made.
    public static func matches(_ events: [JSON]) -> Bool {
        guard events.count == expected.count else { return false }
        return zip(events, expected).enumerated().allSatisfy { index, pair in
            let (event, call) = pair
            let stamped = ["track", "screen", "page"].contains(call.type) ? event["properties"]?["rules_version"] == .int(index < afterRuleChange ? 1 : 2) : true
            return stamped && event["type"]?.stringValue == call.type && (call.name == nil || (event["event"] ?? event["name"])?.stringValue == call.name)
        }
    }

    private static func waitForRemoteRules(version: Int, _ analytics: Analytics) async {
        let deadline = Date().addingTimeInterval(10)
        while await analytics.getDebugInfo().remoteRules?.version != version, Date() < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
