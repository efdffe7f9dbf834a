import RealtimeTransport
import Testing

@testable import HTTP1Codec

@Suite struct HTTPRequestWriterTests {
    @Test func getHasNoBodyFraming() {
        let bytes = HTTPRequestWriter.serialize(
            method: "GET", target: "/a?b=c",
            headers: ["Host": "example.com", "Accept": "*/*"], body: nil)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "GET /a?b=c HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
    }

    @Test func bodyGetsContentLength() {
        let bytes = HTTPRequestWriter.serialize(
            method: "POST", target: "/echo",
            headers: ["Host": "h"], body: Array("hello".utf8))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
    }

    /// A head written apart from its body frames it exactly as the whole request does.
    @Test func aHeadForABodyWrittenApartFramesItTheSameWay() {
        let body = Array("hello".utf8)
        for (method, headers) in [("POST", ["Host": "h"]), ("PUT", ["content-length": "5"])] as [(String, HTTPHeaders)] {
            let whole = HTTPRequestWriter.serialize(method: method, target: "/echo", headers: headers, body: body)
            let head = HTTPRequestWriter.serializeHead(method: method, target: "/echo", headers: headers, bodyLength: body.count)
            #expect(head + body == whole)
        }
        #expect(
            HTTPRequestWriter.serializeHead(method: "POST", target: "/", headers: [:], bodyLength: nil)
                == HTTPRequestWriter.serialize(method: "POST", target: "/", headers: [:], body: nil))
    }

    @Test func emptyPostSaysContentLengthZero() {
        let bytes = HTTPRequestWriter.serialize(method: "POST", target: "/", headers: [:], body: nil)
        #expect(String(decoding: bytes, as: UTF8.self) == "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func explicitFramingIsKept() {
        let bytes = HTTPRequestWriter.serialize(
            method: "PUT", target: "/", headers: ["content-length": "3"],
            body: Array("abc".utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == "PUT / HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc")
    }

    @Test func fieldsAndTargetCannotBreakFraming() {
        let bytes = HTTPRequestWriter.serialize(
            method: "GET", target: "/a b\r\nX: y",
            headers: ["X-Evil\r\nInjected": "v\r\nSet: 1"], body: nil)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == "GET /a%20b%0D%0AX:%20y HTTP/1.1\r\nX-Evil--Injected: v  Set: 1\r\n\r\n")
    }

    /// Parts that need no replacement are written as they are; each kind of replacement still
    /// applies where it is needed, at the first, a middle and the last byte.
    @Test func cleanPartsAreWrittenAsTheyAreAndEveryReplacementStillApplies() {
        let clean = HTTPRequestWriter.serialize(
            method: "POST", target: "/socket.io/?EIO=4&transport=polling&t=P1~x%2F",
            headers: ["Content-Type": "text/plain; charset=UTF-8", "X-Token_1": "a:b/c=d"], body: Array("4hi".utf8))
        #expect(
            String(decoding: clean, as: UTF8.self)
                == "POST /socket.io/?EIO=4&transport=polling&t=P1~x%2F HTTP/1.1\r\nContent-Type: text/plain; charset=UTF-8\r\n"
                + "X-Token_1: a:b/c=d\r\nContent-Length: 3\r\n\r\n4hi")
        let dirty = HTTPRequestWriter.serialize(
            method: "G T", target: " /a{é}\u{7F}",
            headers: ["\u{0}X(y)": "\u{0}mid\rdle\n"], body: nil)
        #expect(
            String(decoding: dirty, as: UTF8.self)
                == "G-T %20/a%7B%C3%A9%7D%7F HTTP/1.1\r\n-X-y-:  mid dle \r\n\r\n")
    }

    @Test func serializedRequestHeadRoundTripsItsFields() {
        let head = HTTPRequestHead(
            method: "GET", target: "/ws",
            headers: ["Host": "h:1", "Upgrade": "websocket", "Connection": "Upgrade"])
        #expect(
            String(decoding: HTTPRequestWriter.serialize(head), as: UTF8.self)
                == "GET /ws HTTP/1.1\r\nHost: h:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    }
}
