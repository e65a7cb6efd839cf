import Crypto
import FCMConnectionServer
import FCMHTTPAPI
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The certificate and key the CCS port and the HTTPS listeners serve: the user's
/// own, or ones made at first start and kept in the state folder: a small emulator
/// CA (the file app servers trust) and a server certificate it signs, naming the
/// Google hosts the SDKs call, localhost and 127.0.0.1. (A lone self-signed server
/// certificate is not accepted as its own trust anchor by every TLS stack.)
public struct TLSIdentity: Sendable {
    /// The server certificate, followed by its CA.
    public let certificatePath: String
    public let keyPath: String
    /// What app servers should trust: the CA, or the user's own certificate.
    public let trustPath: String

    /// The user's own PEM files.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        trustPath = certificatePath
    }

    init(certificatePath: String, keyPath: String, trustPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.trustPath = trustPath
    }

    /// The files in `folder`, made there if missing (the key files mode 0600).
    public static func inFolder(_ folder: String) throws -> TLSIdentity {
        let identity = TLSIdentity(
            certificatePath: folder + "/ccs-cert.pem", keyPath: folder + "/ccs-key.pem",
            trustPath: folder + "/ccs-ca.pem")
        let files = FileManager.default
        if [identity.certificatePath, identity.keyPath, identity.trustPath].allSatisfy(files.fileExists(atPath:)),
            coversEveryHost(identity.certificatePath)
        {
            return identity
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (authority, certificate, key) = try issued()
        try authority.write(toFile: identity.trustPath, atomically: true, encoding: .utf8)
        guard
            files.createFile(atPath: identity.keyPath, contents: Data(key.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: identity.keyPath]) }
        try certificate.write(toFile: identity.certificatePath, atomically: true, encoding: .utf8)
        return identity
    }

    /// The names the server certificate covers: the hosts of the XMPP and HTTP APIs
    /// and of the HTTPS proxy's tunnels, and this machine.
    static let serverNames =
        ["fcm-xmpp.googleapis.com", "mtalk.google.com"] + ProxyRequest.interceptedHosts + ["localhost"]

    /// Whether a certificate made by an earlier release names every host of today's
    /// (one made before the HTTPS proxy existed does not, and is made anew).
    public static func coversEveryHost(_ path: String) -> Bool {
        let end = "-----END CERTIFICATE-----"
        guard let chain = try? String(contentsOfFile: path, encoding: .utf8), let first = chain.range(of: end),
            let certificate = try? Certificate(pemEncoded: String(chain[..<first.upperBound])),
            let names = try? certificate.extensions.subjectAlternativeNames
        else { return false }
        let dnsNames = Set(
            names.compactMap { name -> String? in
                if case .dnsName(let host) = name { return host }
                return nil
            })
        return serverNames.allSatisfy(dnsNames.contains)
    }

    /// A new CA, a server certificate it signed (followed by the CA), and the
    /// server's private key, all PEM. The CA's own key signs that one certificate
    /// and is never written anywhere.
    public static func issued() throws -> (authority: String, certificate: String, key: String) {
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName {
            CommonName("fcm-device local CA")
            OrganizationName("fcm-device")
        }
        let now = Date()
        let authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(authorityKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: authorityName, subject: authorityName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(authorityKey.publicKey))
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("fcm-device emulated connection server")
            OrganizationName("fcm-device")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(
                (["gcm.googleapis.com"] + serverNames).map { GeneralName.dnsName($0) } + [
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))
                ])
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            AuthorityKeyIdentifier(
                keyIdentifier: SubjectKeyIdentifier(hash: Certificate.PublicKey(authorityKey.publicKey)).keyIdentifier)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(825 * 86_400),
            issuer: authorityName, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
        let authorityPEM = try authority.serializeAsPEM().pemString
        return (authorityPEM, try certificate.serializeAsPEM().pemString + "\n" + authorityPEM, key.pemRepresentation)
    }

    /// The TLS context of the HTTPS listeners (the proxy's tunnels and
    /// `--https-port`): ALPN offers HTTP/2 and HTTP/1.1.
    /// A client that names another server (SNI) is refused: its handshake fails
    /// saying which name.
    public func httpsContext() throws -> NIOSSLContext {
        try serverContext(protocols: ["h2", "http/1.1"]) { values, promise in
            if let name = values.serverHostname?.lowercased(), !Self.answersTo(name) {
                promise.fail(UnknownServerName(name: name))
            } else {
                promise.succeed(.noChanges)
            }
        }
    }

    /// Whether a client asking for `name` (SNI) is asking for the emulator.
    static func answersTo(_ name: String) -> Bool {
        serverNames.contains(name) || name == "gcm.googleapis.com" || name == "127.0.0.1"
    }

    /// A TLS client asked for a server the emulator does not stand in for.
    struct UnknownServerName: Error, CustomStringConvertible {
        var name: String
        var description: String {
            "the client asked for \(name), which the emulator does not stand in for (it answers for "
                + TLSIdentity.serverNames.joined(separator: ", ") + ")"
        }
    }

    /// The TLS context for the CCS port: TLS 1.2 or 1.3, no ALPN required.
    public func serverContext(protocols: [String] = [], serverName: NIOSSLContextCallback? = nil) throws
        -> NIOSSLContext
    {
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = protocols
        configuration.sslContextCallback = serverName
        return try NIOSSLContext(configuration: configuration)
    }
}

extension TLSIdentity: ServerTLS {
    public func ccsContext() throws -> NIOSSLContext { try serverContext() }
}
