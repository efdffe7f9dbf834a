/// A user name and password for a proxy (HTTP Basic, RFC 7617, or SOCKS5 RFC 1929).
package struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible {
    package var username: String
    package var password: String

    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Names the user only: the password never appears in logs.
    package var description: String { "\(self.username):***" }
}
