public import Testing

/// Which stack this test build runs on.
public enum BuildConfiguration {
    /// `true` in the `REALTIME_NO_NATIVE_STACK` build (`make test-apple-config`): every product
    /// compiles as on Apple platforms, so the default transports are URLSession's.
    public static var noNativeStack: Bool {
        #if REALTIME_NO_NATIVE_STACK
        true
        #else
        false
        #endif
    }

    /// Why WebSocket tests are skipped in that build.
    public static let noWebSocketReason: Comment =
        "REALTIME_NO_NATIVE_STACK: the default transport is URLSession, and FoundationNetworking's libcurl on Linux cannot open a WebSocket (NSURLErrorUnsupportedURL); the URLSession WebSocket adapter is exercised only against scripted tasks (URLSessionWebSocketUpgradeTests): on Linux it never meets a real server"
}

extension Trait where Self == ConditionTrait {
    /// Skips a test that counts a session lock's sections (`LockDomain.acquisitions`), with the
    /// reason printed, outside debug builds: only they count.
    public static var countsLockSections: Self {
        #if DEBUG
        .enabled(if: true)
        #else
        .enabled(if: false, "the lock domain counts its sections in debug builds only")
        #endif
    }

    /// Skips a test that needs a WebSocket over the default transport, with the reason printed,
    /// in the `REALTIME_NO_NATIVE_STACK` build.
    public static var needsDefaultWebSocket: Self {
        .disabled(if: BuildConfiguration.noNativeStack, BuildConfiguration.noWebSocketReason)
    }

    /// Skips a test that trusts a throwaway CA (`.security`) in the `REALTIME_NO_NATIVE_STACK`
    /// build: URLSession on Linux gets no server-trust challenge, so the CA cannot be applied
    /// there (on Apple platforms the challenge applies it).
    public static var needsNativeTLS: Self {
        .disabled(
            if: BuildConfiguration.noNativeStack,
            "REALTIME_NO_NATIVE_STACK: URLSession on Linux (libcurl) issues no server-trust challenge, so a test CA given with .security cannot be trusted there"
        )
    }

    /// Skips a test that sends traffic through a proxy over the default transport in the
    /// `REALTIME_NO_NATIVE_STACK` build: there the proxy becomes URLSession's
    /// `connectionProxyDictionary`, which FoundationNetworking on Linux ignores.
    public static var needsNativeProxy: Self {
        .disabled(
            if: BuildConfiguration.noNativeStack,
            "REALTIME_NO_NATIVE_STACK: proxies become URLSession's connectionProxyDictionary, which FoundationNetworking on Linux ignores; the mapping is covered by URLSessionProxyTests"
        )
    }

    /// Skips a test of the native stack itself (its event loop, sockets or TLS) in the
    /// `REALTIME_NO_NATIVE_STACK` build, where the default transport is URLSession.
    public static var needsNativeStack: Self {
        .disabled(
            if: BuildConfiguration.noNativeStack,
            "REALTIME_NO_NATIVE_STACK: tests the native stack, which this build leaves out")
    }
}
