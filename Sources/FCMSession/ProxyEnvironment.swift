import FCMConnectionServer
import Foundation

/// The environment that sends an unmodified app server's HTTPS calls to the
/// emulator: its HTTP port as the proxy, its CA as the only trust, for every
/// runtime the SDKs run on. `fcm-device env` prints it and `fcm-device exec` puts it
/// in COMMAND's environment; this is the one place it is written.
public struct ProxyEnvironment: Sendable, Equatable {
    /// The proxy's address, `127.0.0.1:PORT`.
    public var proxy: String
    /// The CA the emulator's certificate comes from (PEM).
    public var caFile: String
    /// The same CA as a PKCS12 trust store for a JVM.
    public var trustStore: String

    public init(proxy: String, caFile: String, trustStore: String) {
        self.proxy = proxy
        self.caFile = caFile
        self.trustStore = trustStore
    }

    /// For an emulator listening on `bind`: a wildcard bind is reached on 127.0.0.1,
    /// an IPv6 address in brackets.
    public init(bind: String, port: Int, caFile: String, trustStore: String) {
        let host = bind == "0.0.0.0" || bind == "::" ? "127.0.0.1" : bind.contains(":") ? "[\(bind)]" : bind
        self.init(proxy: "\(host):\(port)", caFile: caFile, trustStore: trustStore)
    }

    /// Names and values, in the order they are printed.
    public var variables: [(name: String, value: String)] {
        let url = "http://" + proxy
        let colon = proxy.lastIndex(of: ":") ?? proxy.endIndex
        let host = proxy[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let port = proxy[colon...].dropFirst()
        // The JVM splits JAVA_TOOL_OPTIONS on spaces, and honours quotes.
        let store =
            trustStore.contains(" ")
            ? "\"-Djavax.net.ssl.trustStore=\(trustStore)\"" : "-Djavax.net.ssl.trustStore=\(trustStore)"
        return [
            ("HTTPS_PROXY", url), ("https_proxy", url),
            // Calls to the emulator's own ports (the control API) go straight there.
            ("NO_PROXY", "127.0.0.1,localhost,::1"), ("no_proxy", "127.0.0.1,localhost,::1"),
            ("SSL_CERT_FILE", caFile), ("REQUESTS_CA_BUNDLE", caFile), ("CURL_CA_BUNDLE", caFile),
            // httplib2 (Google's discovery-based Python client) trusts this one only.
            ("HTTPLIB2_CA_CERTS", caFile),
            ("NODE_EXTRA_CA_CERTS", caFile), ("NODE_USE_ENV_PROXY", "1"),
            (
                "JAVA_TOOL_OPTIONS",
                "-Dhttps.proxyHost=\(host) -Dhttps.proxyPort=\(port) \(store) "
                    + "-Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword=\(TrustStore.password)"
            ),
        ]
    }

    /// Lines for `eval` in a POSIX shell (`export NAME='value'`) or fish (`set -gx NAME 'value'`).
    public func script(fish: Bool) -> String {
        variables.map { name, value in
            // In fish's single quotes \\ and \' are escapes; in POSIX ones nothing is.
            let quoted =
                fish
                ? "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
                    + "'"
                : "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
            return fish ? "set -gx \(name) \(quoted);" : "export \(name)=\(quoted)"
        }.joined(separator: "\n")
    }
}
