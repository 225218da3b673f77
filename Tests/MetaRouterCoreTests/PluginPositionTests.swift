import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// A plugin of its own class, so positions can name it as an anchor.
private final class AnchorPlugin: Plugin {
    let type = PluginType.enrichment
    private let marking = MarkingPlugin(.enrichment, marker: "anchor")
    func execute(event: Event) -> Event? { marking.execute(event: event) }
}

@Suite struct PluginPositionTests {
    @Test func positionsOrderPluginsWithinTheirStage() async {
        let capture = CapturingDestination()
        let client = makeClient([
            capture, MarkingPlugin(.enrichment, marker: "e1"), AnchorPlugin(), MarkingPlugin(.enrichment, marker: "e2"),
        ])
        client.add(plugin: MarkingPlugin(.enrichment, marker: "first"), at: .first)
        client.add(plugin: MarkingPlugin(.enrichment, marker: "pre"), at: .before(AnchorPlugin.self))
        client.add(plugin: MarkingPlugin(.enrichment, marker: "post"), at: .after(AnchorPlugin.self))
        client.add(plugin: MarkingPlugin(.enrichment, marker: "no-anchor"), at: .before(DroppingPlugin.self))
        client.add(plugin: MarkingPlugin(.before, marker: "gate"), at: .after(AnchorPlugin.self))
        client.track("x")
        await client.settle()
        #expect(capture.events.first?.properties?["trail"] == "gate>first>e1>pre>anchor>post>e2>no-anchor")
    }

    @Test func positionsApplyInADestinationsSubTimeline() async {
        let capture = CapturingDestination(key: "Sub")
        capture.add(plugin: MarkingPlugin(.enrichment, marker: "second"))
        capture.add(plugin: MarkingPlugin(.enrichment, marker: "first"), at: .first)
        let client = makeClient([capture])
        client.add(plugin: MarkingPlugin(.enrichment, marker: "zeroth"), toDestination: "Sub", at: .first)
        client.track("x")
        await client.settle()
        #expect(capture.events.first?.properties?["trail"] == "zeroth>first>second")
    }

    @Test func anEventSubmittedBeforeAnAddDoesNotSeeThePlugin() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        client.track("earlier")
        client.add(plugin: MarkingPlugin(.before, marker: "m"), at: .first)
        client.track("later")
        await client.settle()
        #expect(capture.events.map { $0.properties?["trail"] } == [nil, "m"])
    }
}
