/// The sample's executables read their options as `--name value` pairs.
public enum CommandLineOption {
    /// The value after `name` on the command line, or `nil` when it is not given.
    public static func value(_ name: String, in arguments: [String] = CommandLine.arguments) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}
