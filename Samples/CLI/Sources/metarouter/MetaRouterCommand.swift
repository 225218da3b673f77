import ArgumentParser

/// `metarouter`: see the SDK work, watch what an app sends, replay events.
@main
struct MetaRouterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metarouter",
        abstract: "MetaRouter Swift: a demo, a local collector and live inspector, an event replayer, and local rule and entitlement servers.",
        subcommands: [DemoCommand.self, CollectCommand.self, InspectCommand.self, SendCommand.self, RulesCommand.self, PlanCommand.self, EntitlementsCommand.self])
}
