package import Foundation

/// The reference Socket.IO server (socket.io 4.8, Node.js) of the project's shared folder:
/// `../shared/node-sio/node_modules` beside the repository, run with the `node` on `PATH`.
///
/// A user's clone has no shared folder: tests that need it are disabled with
/// ``unavailableReason``, which Swift Testing prints as the reason they were skipped.
package enum NodeReference {
    /// `../shared/node-sio/node_modules`, relative to the repository root;
    /// `REALTIME_NODE_SIO` overrides it.
    package static let modules: URL = {
        if let override = ProcessInfo.processInfo.environment["REALTIME_NODE_SIO"] {
            return URL(fileURLWithPath: override)
        }
        return TestEnvironment.repositoryRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/node-sio/node_modules")
    }()

    /// The `node` executable found on `PATH`, if any.
    package static let node: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/node"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Why the reference server cannot run here; `nil` when it can.
    ///
    /// The Apple configuration on Linux (`REALTIME_NO_NATIVE_STACK`: URLSession through
    /// FoundationNetworking) does not run these suites: they repeat the native build's interop
    /// checks, and their polling teardowns hit FoundationNetworking's task-registry trap ("a
    /// task that is not in the registry", a cancel racing the session's own completion) that
    /// the Apple SDK's URLSession does not have.
    package static let unavailableReason: String? = {
        guard !BuildConfiguration.noNativeStack else {
            return "the reference-server suites run in the native build (FoundationNetworking's task-registry race on teardown)"
        }
        guard node != nil else { return "node is not on PATH: the reference Socket.IO server cannot run" }
        let socketIO = modules.appendingPathComponent("socket.io/package.json").path
        guard FileManager.default.fileExists(atPath: socketIO) else {
            return "no reference Socket.IO server at \(modules.path) (the project's shared folder is missing)"
        }
        return nil
    }()

    /// `true` when the reference server can run.
    package static var isAvailable: Bool { unavailableReason == nil }
}
