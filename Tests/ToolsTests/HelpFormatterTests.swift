import CommandLineSupport
import Testing

/// `--help`, usage errors and `--version` as swift-argument-parser lays them out.
@Suite struct HelpFormatterTests {
    @Test func laysOutSectionsInAlignedColumns() {
        let command = CommandDescription(
            name: "tool", version: "1.2.3", abstract: "Does things.",
            arguments: [ArgumentDescription("url", help: "The URL.")],
            options: [
                OptionDescription(["-H", "--header"], value: "name: value", help: "A header (repeatable).", repeatable: true),
                OptionDescription(["--json"], help: "JSON lines."),
            ],
            sections: [HelpSection(title: "Exit status", rows: [(label: "0", help: "Fine.")])])
        let expected = """
            OVERVIEW: Does things.

            USAGE: tool [<options>] <url>

            ARGUMENTS:
              <url>                   The URL.

            OPTIONS:
              -H, --header <name: value>
                                      A header (repeatable).
              --json                  JSON lines.
              --version               Show the version.
              -h, --help              Show help information.

            EXIT STATUS:
              0                       Fine.

            """
        #expect(HelpFormatter(command).help == expected)
        #expect(HelpFormatter(command).version == "tool 1.2.3\n")
    }

    @Test func wrapsLongHelpUnderTheHelpColumn() {
        let command = CommandDescription(
            name: "tool", version: "1", abstract: "A.",
            arguments: [],
            options: [OptionDescription(["--long"], help: String(repeating: "word ", count: 40))])
        let lines = HelpFormatter(command, width: 60).help.split(separator: "\n", omittingEmptySubsequences: false)
        let rows = lines.drop { $0 != "OPTIONS:" }.dropFirst().prefix { $0.hasPrefix("  ") }
        #expect(rows.first?.hasPrefix("  --long                  word") == true)
        for row in rows {
            #expect(row.count <= 60)
        }
        for row in rows.dropFirst().prefix(3) {
            #expect(row.hasPrefix(String(repeating: " ", count: 26) + "word"))
        }
    }

    @Test func usageErrorNamesTheErrorAndPointsAtHelp() {
        let text = HelpFormatter(SIOOptions.command).usageError(.missingArgument("url"))
        #expect(
            text == """
                Error: Missing expected argument '<url>'
                Usage: sio [<options>] <url>
                  See 'sio --help' for more information.

                """)
    }

    @Test func bothToolsDocumentEveryExitStatusAndFlag() {
        let sio = HelpFormatter(SIOOptions.command).help
        for status in SIOExitStatus.allCases {
            #expect(sio.contains("\n  \(status.rawValue) "))
        }
        for flag in [
            "--path", "--namespace", "--transport", "--auth", "-H, --header", "-k, --insecure", "--cacert",
            "--version2", "-e, --emit", "-d, --data", "--ack-timeout", "-i, --interactive", "-l, --listen",
        ] {
            #expect(sio.contains("\n  \(flag)"), "sio --help lacks \(flag)")
        }
        let sse = HelpFormatter(SSEOptions.command).help
        for status in SSEExitStatus.allCases {
            #expect(sse.contains("\n  \(status.rawValue) "))
        }
        for flag in [
            "--json", "-X, --method", "-H, --header", "-d, --data", "--last-event-id", "--reconnect",
            "--no-reconnect", "-n, --max-events", "-m, --timeout",
        ] {
            #expect(sse.contains("\n  \(flag)"), "sse --help lacks \(flag)")
        }
        #expect(sse.hasPrefix("OVERVIEW: "))
        #expect(sse.contains("\nUSAGE: sse [<options>] <url>\n"))
    }
}
