// A stub of the SwiftUI symbols the SDK's Apple-only code uses, with the isolation Apple's SDK
// gives them (`View` is @MainActor; its modifiers are nonisolated). For .ci/apple-typecheck
// only: never built into a product. Bodies are placeholders; nothing here runs.
@_exported import Foundation

@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    var body: Body { get }
}

extension Never: View {
    public var body: Never { fatalError() }
}

public struct ModifiedContent<Content, Modifier>: View {
    public var body: Never { fatalError() }
}

public struct GestureMask: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let all = GestureMask(rawValue: 3)
}

public protocol Gesture {
    associatedtype Value
}

public struct TapGesture: Gesture {
    public typealias Value = Void
    nonisolated public init(count: Int = 1) {}
}

public struct _EndedGesture<Content: Gesture>: Gesture {
    public typealias Value = Content.Value
}

extension Gesture {
    nonisolated public func onEnded(_ action: @escaping (Value) -> Void) -> _EndedGesture<Self> { _EndedGesture() }
}

extension View {
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { ModifiedContent<Self, Void>() }
    nonisolated public func onDisappear(perform action: (() -> Void)? = nil) -> some View { ModifiedContent<Self, Void>() }
    nonisolated public func simultaneousGesture<T: Gesture>(_ gesture: T, including mask: GestureMask = .all) -> some View {
        ModifiedContent<Self, T>()
    }
}
