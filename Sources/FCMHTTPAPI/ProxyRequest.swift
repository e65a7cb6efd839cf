import FCMEngine
import FCMHTTPPort

/// The HTTPS-proxy route: an SDK told `HTTPS_PROXY=http://127.0.0.1:PORT` opens a
/// tunnel with `CONNECT host:443`. The emulator takes tunnels to the hosts the SDKs
/// call, and serves them itself (TLS with its own CA, then its usual routes); a tunnel
/// anywhere else is refused, so nothing leaves the machine.
public enum ProxyRequest: Equatable, Sendable {
    /// A tunnel to a host the emulator stands in for.
    case tunnel(host: String)
    /// Refused with this status and reason; `target` as the client wrote it.
    case refused(status: Int, target: String, reason: String)

    /// The hosts the SDKs call, which the emulator answers for (and its certificate
    /// names).
    public static let interceptedHosts = [
        "fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com", "iamcredentials.googleapis.com",
        "gcm-http.googleapis.com", "android.googleapis.com",
        // A real client's registration hosts (check-in and register3, Installations, FCM registrations).
        "android.clients.google.com", "firebaseinstallations.googleapis.com", "fcmregistrations.googleapis.com",
    ]

    /// Longest request head a CONNECT may have.
    public static let maxHeadBytes = 8_192

    /// Reads a CONNECT request's first line (`CONNECT host:port HTTP/1.1`).
    public init(requestLine: String) {
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "CONNECT", parts[2].hasPrefix("HTTP/1.") else {
            self = .refused(
                status: 400, target: "",
                reason: "a CONNECT line is `CONNECT host:443 HTTP/1.1`; got: \(requestLine.prefix(120))")
            return
        }
        let target = String(parts[1])
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]),
            (1...65_535).contains(port)
        else {
            self = .refused(status: 400, target: target, reason: "the CONNECT target \(target) names no port")
            return
        }
        let host = target[..<colon].lowercased()
        guard Self.interceptedHosts.contains(host) else {
            self = .refused(
                status: 403, target: target,
                reason: "the emulator tunnels only to the hosts it stands in for ("
                    + Self.interceptedHosts.joined(separator: ", ") + "), and never to the network")
            return
        }
        guard port == 443 else {
            self = .refused(status: 403, target: target, reason: "\(host) is served on port 443 only")
            return
        }
        self = .tunnel(host: host)
    }

    /// The reply to a refused CONNECT.
    public var refusal: HTTPReply? {
        guard case .refused(let status, _, let reason) = self else { return nil }
        return .text(status, reason + "\n", headers: [KeyedHeader("Connection", "close")])
    }

    /// The request as a rejected-request event shows it.
    public var rejected: RejectedRequest? {
        guard case .refused(_, let target, _) = self, let refusal else { return nil }
        return RejectedRequest(HTTPRequestParts(method: "CONNECT", path: target), refusal)
    }
}
