import Crypto
import FCMJSON
import Foundation
import _CryptoExtras

/// The emulator's service-account key pair: `fcm-device credentials` hands out its
/// private half in a service-account JSON, and the token endpoint verifies the
/// assertions signed with it. One pair per state folder.
public struct ServiceAccountKey: @unchecked Sendable {
    public static let fileName = "service-account-key.pem"
    let privateKey: _RSA.Signing.PrivateKey
    /// The `private_key_id`, sent back as the JWT header's `kid`.
    public let keyID: String

    public init(pem: String) throws {
        privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        let digest = SHA256.hash(data: privateKey.publicKey.derRepresentation)
        keyID = String(digest.map { String(format: "%02x", $0) }.joined().prefix(40))
    }

    public static func generate() throws -> ServiceAccountKey {
        try ServiceAccountKey(pem: _RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation)
    }

    /// The pair kept in `folder`, made (mode 0600) on first use.
    public static func inFolder(_ folder: String) throws -> ServiceAccountKey {
        let path = folder + "/" + fileName
        let files = FileManager.default
        if let pem = files.contents(atPath: path) {
            return try ServiceAccountKey(pem: String(decoding: pem, as: UTF8.self))
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = try generate()
        guard
            files.createFile(
                atPath: path, contents: Data(key.privateKey.pkcs8PEMRepresentation.utf8),
                attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return key
    }

    public func isValidSignature(_ signature: Data, for signed: Data) -> Bool {
        privateKey.publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
    }

    /// Signs with RS256 (for tests and the project's own tools).
    public func sign(_ data: Data) throws -> Data {
        try privateKey.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
    }

    /// The service account's address for a project.
    public static func clientEmail(project: String) -> String {
        "fcm-device@\(project).iam.gserviceaccount.com"
    }

    /// The project a service account address belongs to, or nil for another shape.
    public static func project(ofClientEmail email: String) -> String? {
        let suffix = ".iam.gserviceaccount.com"
        guard let at = email.firstIndex(of: "@"), email.hasSuffix(suffix) else { return nil }
        let project = email[email.index(after: at)..<email.index(email.endIndex, offsetBy: -suffix.count)]
        return project.isEmpty ? nil : String(project)
    }

    /// A service-account JSON as the Google console gives one, whose `token_uri`
    /// is the emulator's token endpoint.
    public func credentialsJSON(project: String, tokenURI: String) -> String {
        let email = Self.clientEmail(project: project)
        let fields: [(String, String)] = [
            ("type", "service_account"),
            ("project_id", project),
            ("private_key_id", keyID),
            ("private_key", privateKey.pkcs8PEMRepresentation + "\n"),
            ("client_email", email),
            ("client_id", String(keyID.prefix(21).compactMap(\.hexDigitValue).map(String.init).joined().prefix(21))),
            ("auth_uri", "https://accounts.google.com/o/oauth2/auth"),
            ("token_uri", tokenURI),
            ("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs"),
            ("client_x509_cert_url", "https://www.googleapis.com/robot/v1/metadata/x509/" + email),
            ("universe_domain", "googleapis.com"),
        ]
        var json = "{\n"
        for (index, (name, value)) in fields.enumerated() {
            json += "  \"\(name)\": "
            JSONText.appendString(value, to: &json)
            json += index == fields.count - 1 ? "\n" : ",\n"
        }
        return json + "}"
    }
}
