import CommandLineSupport
import Foundation
import Testing

/// `sio`'s reconnection options read into the manager's `reconnectWait` and
/// `reconnectWaitMax`, and what `--help` says about them, comment lines and signals.
@Suite struct SIOReconnectOptionsTests {
    func options(_ arguments: [String]) throws(UsageError) -> SIOOptions {
        guard case .run(let options) = try SIOOptions.parse(arguments) else { throw .unexpectedArgument("help") }
        return options
    }

    func usageError(_ arguments: [String]) -> String? {
        do throws(UsageError) {
            _ = try self.options(arguments)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theManagersDefaultsUnlessGiven() throws {
        let options = try self.options(["h"])
        #expect(options.reconnectDelay == nil)
        #expect(options.reconnectDelayMax == nil)
    }

    @Test(arguments: [
        (["--reconnect-delay", "2"], 2, 30),
        (["--reconnect-delay", "45"], 45, 45),
        (["--reconnect-delay-max", "5"], 5, 5),
        (["--reconnect-delay-max", "60"], 10, 60),
        (["--reconnect-delay", "1", "--reconnect-delay-max", "3"], 1, 3),
        (["--reconnect-delay=4", "--reconnect-delay-max=4"], 4, 4),
    ])
    func delaysAreWholeSecondsAndTheOtherFollows(arguments: [String], wait: Int, waitMax: Int) throws {
        let options = try self.options(["h"] + arguments)
        #expect(options.reconnectDelay == wait)
        #expect(options.reconnectDelayMax == waitMax)
    }

    @Test func invalidDelaysAreUsageErrors() {
        #expect(self.usageError(["h", "--reconnect-delay", "0"])?.contains("expected an integer >= 1") == true)
        #expect(self.usageError(["h", "--reconnect-delay", "1.5"])?.contains("expected an integer >= 1") == true)
        #expect(self.usageError(["h", "--reconnect-delay-max", "-1"]) != nil)
        let below = self.usageError(["h", "--reconnect-delay", "5", "--reconnect-delay-max", "2"])
        #expect(below?.contains("expected at least --reconnect-delay (5)") == true, "\(below ?? "no error")")
        let conflict = self.usageError(["h", "--no-reconnect", "--reconnect-delay", "2"])
        #expect(conflict?.contains("--no-reconnect") == true && conflict?.contains("--reconnect-delay") == true, "\(conflict ?? "no error")")
    }

    @Test func helpDocumentsDelaysCommentsAndSignals() {
        let help = HelpFormatter(SIOOptions.command).help
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("--reconnect-delay <seconds> The least wait between reconnection tries, in whole seconds (default: 10)."))
        #expect(flat.contains("--reconnect-delay-max <seconds> The most wait between reconnection tries"))
        #expect(flat.contains("lines whose first character other than a space or tab is # are skipped (comments)"))
        #expect(flat.contains("still connecting every 5 s"))
        #expect(flat.contains("130 Interrupted (SIGINT, Ctrl-C)"))
        #expect(flat.contains("143 Terminated (SIGTERM)"))
    }
}
