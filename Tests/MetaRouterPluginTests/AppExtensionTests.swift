import MetaRouterPlatform
import Testing

/// The bundle check the Apple glue makes before it reaches for `UIApplication`.
@Suite struct AppExtensionTests {
    @Test func appExtensionsAreRecognisedByTheirBundle() {
        #expect(AppExtension.isExtension(bundlePath: "/private/var/containers/Bundle/Application/X/Shop.app/PlugIns/Widget.appex"))
        #expect(AppExtension.isExtension(bundlePath: "/x/Share.APPEX/"))
        #expect(!AppExtension.isExtension(bundlePath: "/private/var/containers/Bundle/Application/X/Shop.app"))
        #expect(!AppExtension.isExtension(bundlePath: "/usr/local/bin"))
    }
}
