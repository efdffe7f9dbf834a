import CommandLineSupport
import Testing

/// The generic parser against a small command, with no I/O.
@Suite struct CommandLineParserTests {
    static let command = CommandDescription(
        name: "tool", version: "1.0", abstract: "A tool.",
        arguments: [ArgumentDescription("url", help: "The URL."), ArgumentDescription("extra", help: "More.", isOptional: true)],
        options: [
            OptionDescription(["-H", "--header"], value: "header", help: "A header.", repeatable: true),
            OptionDescription(["-X", "--method"], value: "method", help: "A method."),
            OptionDescription(["-k", "--insecure"], help: "A flag."),
        ])

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommandLine {
        guard case .run(let parsed) = try CommandLineParser.parse(arguments, for: Self.command) else {
            throw .unexpectedArgument("help or version")
        }
        return parsed
    }

    @Test func readsArgumentsFlagsAndValuesInEverySpelling() throws {
        let parsed = try self.parse(["-H", "A: 1", "http://x", "--header=B: 2", "-XPOST", "--insecure", "-HC: 3", "more"])
        #expect(parsed.arguments == ["http://x", "more"])
        #expect(parsed.allValues("--header") == ["A: 1", "B: 2", "C: 3"])
        #expect(parsed.value("--method") == "POST")
        #expect(parsed.flag("--insecure"))
        #expect(parsed.spelling("--method") == "-X")
        #expect(parsed.spelling("--header") == "-H")
    }

    @Test func aValueIsTheNextArgumentWhateverItLooksLike() throws {
        let parsed = try self.parse(["-X", "-1", "--header", "--insecure", "u"])
        #expect(parsed.value("--method") == "-1")
        #expect(parsed.allValues("--header") == ["--insecure"])
        #expect(!parsed.flag("--insecure"))
    }

    @Test func aNonRepeatableOptionKeepsTheLastValue() throws {
        let parsed = try self.parse(["u", "-X", "GET", "--method", "PUT"])
        #expect(parsed.allValues("--method") == ["PUT"])
    }

    @Test func doubleDashEndsOptionsAndALoneDashIsAnArgument() throws {
        #expect(try self.parse(["--", "--insecure"]).arguments == ["--insecure"])
        #expect(try self.parse(["-", "-k"]).arguments == ["-"])
        // `--help` after `--` is an argument, not a request for help.
        #expect(try self.parse(["u", "--", "--help"]).arguments == ["u", "--help"])
    }

    @Test func helpAndVersionWinAnywhereBeforeDoubleDash() throws {
        #expect(try CommandLineParser.parse(["--bogus", "-h"], for: Self.command) == .help)
        #expect(try CommandLineParser.parse(["u", "--help"], for: Self.command) == .help)
        #expect(try CommandLineParser.parse(["--version"], for: Self.command) == .version)
    }

    @Test(arguments: [
        (["--bogus", "u"], UsageError.unknownOption("--bogus")),
        (["-Z", "u"], UsageError.unknownOption("-Z")),
        (["-kX", "u"], UsageError.unknownOption("-kX")),
        (["u", "-X"], UsageError.missingValue(option: "-X")),
        (["u", "--insecure=yes"], UsageError.unexpectedValue(option: "--insecure")),
        ([], UsageError.missingArgument("url")),
        (["-k"], UsageError.missingArgument("url")),
        (["a", "b", "c"], UsageError.unexpectedArgument("c")),
    ])
    func typedUsageErrors(arguments: [String], expected: UsageError) {
        #expect(throws: expected) { try CommandLineParser.parse(arguments, for: Self.command) }
    }

    @Test func usageErrorsReadLikeSwiftArgumentParser() {
        #expect(UsageError.unknownOption("--bogus").description == "Unknown option '--bogus'")
        #expect(UsageError.missingArgument("url").description == "Missing expected argument '<url>'")
        #expect(UsageError.missingValue(option: "-X").description == "Missing value for '-X'")
    }
}
