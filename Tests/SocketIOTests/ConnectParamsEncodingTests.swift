import Dispatch
import Foundation
import RealtimeHTTP
import Testing

@testable import SocketIO

/// `connectParams` are written into the URLs as socket.io-client-swift 16.x writes them:
/// upstream's `String.urlEncode()` (`addingPercentEncoding` with the inverted set of
/// `!*'();:@&=+$,/?%#[]" {}^|`), so a form-decoding server reads `+` as `+`.
@Suite struct ConnectParamsEncodingTests {
    /// Upstream's `CharacterSet.allowedURLCharacterSet` (`Util/SocketExtensions.swift`).
    static let upstreamAllowed = CharacterSet(charactersIn: "!*'();:@&=+$,/?%#[]\" {}^|").inverted

    /// Upstream's own vectors (`SocketEngineTest.testURLEncodingProperly`) and a few more.
    @Test(arguments: [
        ("2016-05-04T18:31:15+0200", "2016-05-04T18%3A31%3A15%2B0200"),
        ("!*'();:@&=+$,/?%#[]\" {}^|", "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%25%23%5B%5D%22%20%7B%7D%5E%7C"),
        ("ab+/cd==", "ab%2B%2Fcd%3D%3D"),
        ("a b&c=d%e", "a%20b%26c%3Dd%25e"),
        ("é€😀", "%C3%A9%E2%82%AC%F0%9F%98%80"),
        ("Az09-._~", "Az09-._~"),
        ("", ""),
    ])
    func encodesAsUpstream(_ text: String, _ expected: String) {
        #expect(EngineQueryEncoding.encode(text) == expected)
    }

    /// Every printable ASCII character and some non-ASCII ones, against Foundation's
    /// `addingPercentEncoding` with upstream's set: the same bytes.
    @Test func matchesUpstreamsFoundationEncodingCharacterByCharacter() {
        // Upstream leaves these raw and then traps (invalid in a URL query); encoded here.
        let upstreamTraps: Set<Character> = ["<", ">", "\\", "`"]
        var checked = 0
        for scalar in (0x20...0x7E).compactMap(Unicode.Scalar.init) + ["é", "ß", "中", "\u{1F600}", "\u{00A0}"] {
            let text = "x" + String(scalar) + "y"
            guard !upstreamTraps.contains(Character(scalar)) else {
                #expect(EngineQueryEncoding.encode(text) == "x%" + String(format: "%02X", scalar.value) + "y")
                continue
            }
            #expect(
                EngineQueryEncoding.encode(text) == text.addingPercentEncoding(withAllowedCharacters: Self.upstreamAllowed),
                "\(scalar.escaped(asASCII: true))")
            checked += 1
        }
        #expect(checked == 95 - upstreamTraps.count + 5)
    }

    /// Control characters and DEL, which upstream would also trap on, are encoded.
    @Test func encodesControlCharacters() {
        #expect(EngineQueryEncoding.encode("a\u{0}\t\n\r\u{7F}b") == "a%00%09%0A%0D%7Fb")
    }

    func engine(_ extra: SocketIOClientConfiguration) -> SocketEngine {
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "query-encoding")), .reconnects(false)]
        for option in extra { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: config)
        return SocketEngine(client: manager, url: manager.socketURL, config: manager.config)
    }

    /// Upstream's `testURLEncodingProperly`, query for query.
    @Test func engineURLsCarryUpstreamsQuery() {
        let engine = self.engine([])
        engine.connectParams = ["created": "2016-05-04T18:31:15+0200"]
        #expect(engine.urlPolling.query == "transport=polling&b64=1&created=2016-05-04T18%3A31%3A15%2B0200&EIO=4")
        #expect(engine.urlWebSocket.query == "transport=websocket&created=2016-05-04T18%3A31%3A15%2B0200&EIO=4")

        engine.connectParams = ["forbidden": "!*'();:@&=+$,/?%#[]\" {}^|"]
        let forbidden = "forbidden=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%25%23%5B%5D%22%20%7B%7D%5E%7C"
        #expect(engine.urlPolling.query == "transport=polling&b64=1&" + forbidden + "&EIO=4")
        #expect(engine.urlWebSocket.query == "transport=websocket&" + forbidden + "&EIO=4")
    }

    /// Keys are encoded like values; parameters are sorted by key.
    @Test func keysAreEncodedAndSorted() {
        let engine = self.engine([.connectParams(["b+ k": 1, "a/é": "x"])])
        #expect(engine.urlPolling.query == "transport=polling&b64=1&a%2F%C3%A9=x&b%2B%20k=1&EIO=4")
        #expect(engine.urlWebSocket.query == "transport=websocket&a%2F%C3%A9=x&b%2B%20k=1&EIO=4")
    }

    /// The URLs the requests go to (with the sid, the cache counter) keep the encoding.
    @Test func requestURLsKeepTheEncodedQuery() {
        let engine = self.engine([.connectParams(["token": "ab+/cd=="])])
        let webSocket = engine.webSocketURL(sid: "s+1")
        #expect(webSocket.query == "transport=websocket&token=ab%2B%2Fcd%3D%3D&EIO=4&sid=s%2B1")
        let handshake = engine.pollingRequest(method: "GET", sid: nil, idleTimeout: .seconds(1))
        #expect(handshake.url.query == "transport=polling&b64=1&token=ab%2B%2Fcd%3D%3D&EIO=4&t=1")
        let poll = engine.pollingRequest(method: "GET", sid: "s+1", idleTimeout: .seconds(1))
        #expect(poll.url.query == "transport=polling&b64=1&token=ab%2B%2Fcd%3D%3D&EIO=4&sid=s%2B1&t=2")
    }
}

/// python-socketio's connect handler decodes the query (`parse_qs`, a form decoding) to the
/// exact values the app passed, over every transport and both server integrations.
@Suite(.serialized) struct ConnectParamsLoopbackTests {
    static let params: [String: String] = [
        "plus": "a+b",
        "amp": "a&b",
        "eq": "a=b",
        "percent": "100%",
        "escape": "%2B%zz",
        "space": "a b",
        "utf8": "é€😀 中文",
        "token": "ab+/cd==",
        "created": "2016-05-04T18:31:15+0200",
        "forbidden": "!*'();:@&=+$,/?%#[]\" {}^|",
        "invalid": "<a>`\\",
        "k+e y&=é": "key",
    ]

    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func connectHandlerReceivesTheExactValues(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor, extra: [.connectParams(Self.params)])
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        let seen = try #require(await harness.ack(socket, "query_seen", [])?.first as? [String: [String]])
        for (key, value) in Self.params {
            // aiohttp's `request.query_string` (yarl) is already partly decoded (`%25` -> `%`),
            // so python-engineio's `parse_qs` decodes a literal `%2B` a second time; the
            // ASGI flavor passes the raw query and receives it exactly.
            if key == "escape" && flavor == .aiohttp { continue }
            #expect(seen[key] == [value], "\(key)")
        }
        #expect(seen["EIO"] == ["4"])
    }
}
