import FCMConnectionServer
import Foundation
import SwiftASN1
import X509

/// A PKCS12 file that holds one trusted certificate, the form a JVM reads as its
/// trust store (`-Djavax.net.ssl.trustStore=… -Djavax.net.ssl.trustStoreType=PKCS12`).
/// It has no private key and no integrity MAC: it holds nothing secret, and the JVM
/// reads such a file with any password.
public enum TrustStore {
    /// The password a JVM is given for it (any will do: the file has no MAC).
    public static let password = "changeit"

    /// Writes `pemPath`'s first certificate to `path` as a PKCS12 trust store (a
    /// chain file holds several; the first is the one to trust when it is the CA's
    /// own file, and the user's own certificate otherwise).
    public static func write(certificateFrom pemPath: String, to path: String) throws {
        let chain = try String(contentsOfFile: pemPath, encoding: .utf8)
        let end = "-----END CERTIFICATE-----"
        guard let first = chain.range(of: end) else { throw CocoaError(.fileReadCorruptFile) }
        let certificate = try Certificate(pemEncoded: String(chain[..<first.upperBound]))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let data = Data(pkcs12(trusting: serializer.serializedBytes, name: "fcm-device local CA"))
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The DER of a PFX (RFC 7292) with one certificate bag marked trusted for any
    /// use, as Java's keytool writes trusted certificate entries.
    static func pkcs12(trusting certificate: [UInt8], name: String) -> [UInt8] {
        let certBag = DERWriter.sequence([
            DERWriter.oid([1, 2, 840, 113_549, 1, 9, 22, 1]),  // x509Certificate
            DERWriter.explicit(0, DERWriter.octetString(certificate)),
        ])
        let attributes = DERWriter.set([
            DERWriter.sequence([
                DERWriter.oid([1, 2, 840, 113_549, 1, 9, 20]),  // friendlyName
                DERWriter.set([DERWriter.bmpString(name)]),
            ]),
            DERWriter.sequence([
                DERWriter.oid([2, 16, 840, 1, 113_894, 746_875, 1, 1]),  // Java's trusted-key-usage
                DERWriter.set([DERWriter.oid([2, 5, 29, 37, 0])]),  // any extended key usage
            ]),
        ])
        let safeBag = DERWriter.sequence([
            DERWriter.oid([1, 2, 840, 113_549, 1, 12, 10, 1, 3]),  // certBag
            DERWriter.explicit(0, certBag), attributes,
        ])
        let data = DERWriter.oid([1, 2, 840, 113_549, 1, 7, 1])  // pkcs7-data
        let safeContents = DERWriter.sequence([safeBag])
        let authenticatedSafe = DERWriter.sequence([
            DERWriter.sequence([data, DERWriter.explicit(0, DERWriter.octetString(safeContents))])
        ])
        return DERWriter.sequence([
            DERWriter.integer(3),
            DERWriter.sequence([data, DERWriter.explicit(0, DERWriter.octetString(authenticatedSafe))]),
        ])
    }
}

/// The few DER encodings the trust store needs.
enum DERWriter {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var count = content.count
            var bytes: [UInt8] = []
            while count > 0 {
                bytes.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    static func sequence(_ items: [[UInt8]]) -> [UInt8] { element(0x30, items.flatMap { $0 }) }
    static func set(_ items: [[UInt8]]) -> [UInt8] { element(0x31, items.flatMap { $0 }) }
    static func octetString(_ bytes: [UInt8]) -> [UInt8] { element(0x04, bytes) }
    static func explicit(_ number: UInt8, _ inner: [UInt8]) -> [UInt8] { element(0xA0 | number, inner) }
    static func integer(_ value: UInt8) -> [UInt8] { element(0x02, [value]) }
    static func bmpString(_ text: String) -> [UInt8] {
        element(0x1E, text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }

    static func oid(_ arcs: [UInt64]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(arcs[0] * 40 + arcs[1])]
        for arc in arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            bytes += chunk
        }
        return element(0x06, bytes)
    }
}
