/// The `--name value` options of the benchmark and soak tools.
package struct CommandLineOptions {
    package let arguments: [String]

    /// The process's arguments, without the program's name.
    package init(arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.arguments = arguments
    }

    /// The value after `--name`, or `fallback` when it is missing.
    package func string(_ name: String, _ fallback: String) -> String {
        guard let index = self.arguments.firstIndex(of: "--\(name)"), index + 1 < self.arguments.count else { return fallback }
        return self.arguments[index + 1]
    }

    /// Whether `--name` is given (a flag without a value).
    package func flag(_ name: String) -> Bool {
        self.arguments.contains("--\(name)")
    }

    /// The integer after `--name`, or `fallback` when it is missing or not an integer.
    package func integer(_ name: String, _ fallback: Int) -> Int {
        Int(self.string(name, "")) ?? fallback
    }
}
