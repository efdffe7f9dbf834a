import RealtimeEncoding

/// Fail-fast UTF-8 validation of a text frame whose payload has not fully arrived (RFC 6455
/// §8.1; Autobahn 6.4.x): a connection rejects invalid text as soon as the bytes that make it
/// invalid arrive, not when the frame completes.
///
/// Call ``check(_:_:)`` each time ``WebSocketFrameDecoder/nextFrame()`` returns `nil`, and
/// ``frameCompleted()`` each time it returns a frame. Only the bytes received since the last
/// check are validated. The check only anticipates what ``WebSocketMessageAssembler`` would
/// say of the complete frame: a frame whose header already breaks a rule the assembler checks
/// first (RSV1 on a continuation, a message over the limit, ...) is not validated here and
/// fails with that rule's close code when it completes, so whole and chunked input close alike.
///
/// ```swift
/// guard let frame = try decoder.nextFrame() else {
///     try partialText.check(decoder, assembler)
///     return .readMore
/// }
/// partialText.frameCompleted()
/// ```
package struct WebSocketPartialTextCheck: Sendable {
    /// The validator of the partial frame and how many of its payload bytes it has seen;
    /// `nil` until a partial frame that carries plain text is seen.
    private var state: (validator: UTF8Validator, checked: Int)?
    /// The partial frame was looked at and is not to be validated.
    private var skipped = false

    package init() {}

    /// Validates the payload bytes of `decoder`'s partial frame received since the last call.
    ///
    /// - Throws: ``WebSocketProtocolError/invalidUTF8(_:)`` (1007) at the first invalid byte.
    package mutating func check(
        _ decoder: WebSocketFrameDecoder,
        _ assembler: WebSocketMessageAssembler
    ) throws(WebSocketProtocolError) {
        guard !self.skipped, let partial = decoder.partialFrame else { return }
        if self.state == nil {
            guard
                let validator = assembler.textValidator(
                    forFrameWith: partial.opcode, rsv1: partial.rsv1,
                    payloadLength: partial.payloadLength)
            else {
                self.skipped = true
                return
            }
            self.state = (validator, 0)
        }
        guard var state = self.state, partial.payloadSoFar.count > state.checked else { return }
        let valid = partial.payloadSoFar.withUnsafeBytes { all in
            state.validator.validate(UnsafeRawBufferPointer(rebasing: all[state.checked...]))
        }
        guard valid else { throw .invalidUTF8("text frame is not valid UTF-8") }
        state.checked = partial.payloadSoFar.count
        self.state = state
    }

    /// The partial frame completed: the next partial frame starts a new check.
    package mutating func frameCompleted() {
        self.state = nil
        self.skipped = false
    }
}
