import NIOSSL

/// The TLS the listeners serve with, made by whoever holds the certificate and key
/// (the session's `TLSIdentity`): the server only asks for contexts.
public protocol ServerTLS: Sendable {
    /// For the CCS TLS port.
    func ccsContext() throws -> NIOSSLContext
    /// For HTTPS: the proxy's tunnels and the direct TLS port (h2 and http/1.1 by ALPN).
    func httpsContext() throws -> NIOSSLContext
}
