import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The certificate and key the CCS port serves: the user's own, or a self-signed
/// pair made at first start and kept in the state folder, naming
/// fcm.googleapis.com, gcm.googleapis.com, localhost and 127.0.0.1.
public struct TLSIdentity: Sendable {
    public let certificatePath: String
    public let keyPath: String

    /// The user's own PEM files.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// The pair in `folder`, made there if missing (the key file mode 0600).
    public static func inFolder(_ folder: String) throws -> TLSIdentity {
        let identity = TLSIdentity(
            certificatePath: folder + "/ccs-cert.pem", keyPath: folder + "/ccs-key.pem")
        let files = FileManager.default
        if files.fileExists(atPath: identity.certificatePath), files.fileExists(atPath: identity.keyPath) {
            return identity
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (certificate, key) = try selfSigned()
        guard
            files.createFile(atPath: identity.keyPath, contents: Data(key.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: identity.keyPath]) }
        try certificate.write(toFile: identity.certificatePath, atomically: true, encoding: .utf8)
        return identity
    }

    /// A new self-signed certificate and its private key, both PEM.
    public static func selfSigned() throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("fcm-device emulated connection server")
            OrganizationName("fcm-device")
        }
        let now = Date()
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([
                .dnsName("fcm.googleapis.com"), .dnsName("gcm.googleapis.com"), .dnsName("fcm-xmpp.googleapis.com"),
                .dnsName("gcm-http.googleapis.com"), .dnsName("localhost"),
                .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            ])
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    /// The TLS context for the CCS port: TLS 1.2 or 1.3, no ALPN required.
    public func serverContext() throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }
}
