import FCMEngine
import Foundation

/// What a session asks its connection to do.
public enum SessionOutput: Sendable, Equatable {
    /// Write this XML.
    case write(String)
    /// Start a new XML document: the stream restart after authentication.
    case restartParser
    /// SASL succeeded for this sender.
    case authenticated(sender: String)
    /// The session IQ was answered: the app server is ready for traffic.
    case established
    /// A CCS message (the JSON text of `<gcm>`), with the stanza's id.
    case gcm(json: String, stanzaID: String?)
    /// Close the connection after writing what came before.
    case close
}

/// One app server's XMPP session in Google's CCS dialect, as a value: stream events
/// in, writes and happenings out.
///
///     header ─▶ features(PLAIN) ─▶ <auth> ─▶ <success/> ─▶ restart ─▶ header ─▶
///     features(bind, session) ─▶ bind ─▶ session ─▶ ready: <message><gcm>…</gcm></message>
public struct XMPPSession: Sendable {
    public enum Phase: Sendable, Equatable { case opening, authenticating, restarting, binding, ready, closed }

    public private(set) var phase: Phase = .opening
    public private(set) var sender: String?
    /// The domain the app server asked for (`fcm.googleapis.com` or `gcm.googleapis.com`).
    public private(set) var domain = "fcm.googleapis.com"
    let streamID: String
    let resource: String
    /// Whether a sender's server key lets it log in: asked of the device at each
    /// login, so a sender added or removed while it runs is let in or kept out at once.
    let login: @Sendable (_ sender: String, _ key: String) -> Bool

    public init(
        login: @escaping @Sendable (_ sender: String, _ key: String) -> Bool, streamID: String, resource: String
    ) {
        self.login = login
        self.streamID = streamID
        self.resource = resource
    }

    /// A session whose senders and keys are fixed (sender ID → server key).
    public init(keys: [String: String], streamID: String, resource: String) {
        self.init(
            login: { sender, key in keys[sender].map { ConstantTime.equals($0, key) } ?? false }, streamID: streamID,
            resource: resource)
    }

    public static let saslNamespace = "urn:ietf:params:xml:ns:xmpp-sasl"

    public mutating func handle(_ event: XMLStreamEvent) -> [SessionOutput] {
        switch (event, phase) {
        case (_, .closed): return []
        case (.streamStart(let header), .opening):
            if let to = header.attribute("to"), to == "gcm.googleapis.com" || to == "fcm.googleapis.com" { domain = to }
            phase = .authenticating
            return [
                .write(
                    openStream() + "<stream:features><mechanisms xmlns=\"\(Self.saslNamespace)\">"
                        + "<mechanism>PLAIN</mechanism></mechanisms></stream:features>")
            ]
        case (.streamStart, .restarting):
            phase = .binding
            return [
                .write(
                    openStream() + "<stream:features><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"/>"
                        + "<session xmlns=\"urn:ietf:params:xml:ns:xmpp-session\"/></stream:features>")
            ]
        case (.streamStart, _):
            return streamError("invalid-xml", "the stream was opened twice")
        case (.streamEnd, _):
            phase = .closed
            return [.write("</stream:stream>"), .close]
        case (.stanza(let stanza), .authenticating):
            return authenticate(stanza)
        case (.stanza(let stanza), .binding), (.stanza(let stanza), .ready):
            return serve(stanza)
        case (.stanza(let stanza), _):
            if stanza.localName == "error" { return [] }
            return streamError("not-authorized", "<\(stanza.name)> before authentication")
        }
    }

    func openStream() -> String {
        "<?xml version='1.0'?><stream:stream from=\"\(domain)\" id=\"\(streamID)\" version=\"1.0\" "
            + "xmlns:stream=\"http://etherx.jabber.org/streams\" xmlns=\"jabber:client\">"
    }

    /// Ends the stream with an error condition.
    public mutating func streamError(_ condition: String, _ text: String) -> [SessionOutput] {
        let opened = phase != .opening
        phase = .closed
        return [
            .write(
                (opened ? "" : openStream())
                    + "<stream:error><\(condition) xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"
                    + "<text xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\">\(XMLEscape.text(text))</text></stream:error></stream:stream>"
            ),
            .close,
        ]
    }

    mutating func authenticate(_ stanza: XMLElement) -> [SessionOutput] {
        if stanza.localName == "error" { return [] }
        guard stanza.localName == "auth" else {
            return streamError("not-authorized", "<\(stanza.name)> before authentication")
        }
        guard stanza.attribute("mechanism") == "PLAIN" else {
            return [.write("<failure xmlns=\"\(Self.saslNamespace)\"><invalid-mechanism/></failure>")]
        }
        guard let sender = Self.plainSender(stanza.text, login: login) else {
            return [.write("<failure xmlns=\"\(Self.saslNamespace)\"><not-authorized/></failure>")]
        }
        self.sender = sender
        phase = .restarting
        return [.write("<success xmlns=\"\(Self.saslNamespace)\"/>"), .restartParser, .authenticated(sender: sender)]
    }

    /// The sender a SASL PLAIN message authenticates, if its key is right.
    /// authcid: `SENDER`, `SENDER@fcm.googleapis.com` or `SENDER@gcm.googleapis.com`;
    /// authzid: empty or a bare JID of the same sender.
    public static func plainSender(_ base64: String, login: (_ sender: String, _ key: String) -> Bool) -> String? {
        let trimmed = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: trimmed) else { return nil }
        let parts = data.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard parts.count == 3 else { return nil }
        let sender = bareSender(parts[1])
        guard login(sender, parts[2]) else { return nil }
        if !parts[0].isEmpty && bareSender(parts[0]) != sender { return nil }
        return sender
    }

    static func bareSender(_ identity: String) -> String {
        for domain in ["@fcm.googleapis.com", "@gcm.googleapis.com"] where identity.hasSuffix(domain) {
            return String(identity.dropLast(domain.count))
        }
        return identity
    }

    mutating func serve(_ stanza: XMLElement) -> [SessionOutput] {
        switch stanza.localName {
        case "iq": return answer(stanza)
        case "message":
            guard let gcm = stanza.child("gcm") else { return [] }
            return [.gcm(json: gcm.text, stanzaID: stanza.attribute("id"))]
        case "error": return []
        default: return []
        }
    }

    mutating func answer(_ iq: XMLElement) -> [SessionOutput] {
        let id = XMLEscape.attribute(iq.attribute("id") ?? "")
        let type = iq.attribute("type") ?? ""
        if type == "result" || type == "error" { return [] }
        if type == "set", iq.child("bind") != nil, let sender {
            phase = .ready
            return [
                .write(
                    "<iq type=\"result\" id=\"\(id)\"><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\">"
                        + "<jid>\(sender)@\(domain)/\(resource)</jid></bind></iq>")
            ]
        }
        // RFC 6120 §10.3.3: a reply to an IQ sent without `to` carries no `from` (a
        // strict client accepts only that or its own bare JID); one sent to an
        // address answers from that address.
        let from = iq.attribute("to").map { " from=\"\(XMLEscape.attribute($0))\"" } ?? ""
        if iq.child("session") != nil {
            phase = .ready
            return [.write("<iq type=\"result\" id=\"\(id)\"\(from)/>"), .established]
        }
        if type == "get", iq.child("ping") != nil {
            return [.write("<iq type=\"result\" id=\"\(id)\"\(from)/>")]
        }
        return [
            .write(
                "<iq type=\"error\" id=\"\(id)\"\(from)><error type=\"cancel\">"
                    + "<service-unavailable xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\"/></error></iq>")
        ]
    }
}
