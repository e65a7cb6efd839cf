/// An upstream message's address, `SENDER@gcm.googleapis.com` (or, for the FCM SDK,
/// `SENDER@fcm.googleapis.com`), read byte by byte: it is read on every send.
enum UpstreamAddress {
    static let gcmDomain = Array(SDK.gcm.upstreamDomain.utf8)
    static let fcmDomain = Array(SDK.fcm.upstreamDomain.utf8)

    /// The sender the address names, or nil when it has no `@` or a domain the SDK
    /// does not send to.
    static func sender(in address: String, sdk: SDK) -> String? {
        let read = address.utf8.withContiguousStorageIfAvailable { bytes in sender(in: bytes, sdk: sdk) }
        if let read { return read }
        return Array(address.utf8).withUnsafeBufferPointer { sender(in: $0, sdk: sdk) }
    }

    private static func sender(in bytes: UnsafeBufferPointer<UInt8>, sdk: SDK) -> String? {
        var at = 0
        while at < bytes.count, bytes[at] != UInt8(ascii: "@") { at += 1 }
        guard at < bytes.count else { return nil }
        let domain = UnsafeBufferPointer(rebasing: bytes[(at + 1)...])
        guard matches(domain, gcmDomain) || (sdk == .fcm && matches(domain, fcmDomain)) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<at]), as: UTF8.self)
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ domain: [UInt8]) -> Bool {
        guard bytes.count == domain.count else { return false }
        return domain.withUnsafeBufferPointer { domain in
            for index in 0..<domain.count where bytes[index] != domain[index] { return false }
            return true
        }
    }
}
