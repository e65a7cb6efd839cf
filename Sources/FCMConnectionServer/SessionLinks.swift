import FCMDoor
import FCMEngine
import FCMXMPP

/// App-server connections coming and going, what they send, and what the engine
/// asks to be written to them. Translation only: the rules are the engine's.
extension DeviceHost {
    /// Hands the engine something that happened on a connection.
    func input(_ input: AppServerInput) {
        precondition(loop.inLoop)
        submit { _, time in [.input(.appServer(input), at: time)] }
    }

    func opened(_ connection: CCSConnection) {
        attach(connection, as: connection.number)
        input(.opened(connection.number))
    }

    func closed(_ connection: CCSConnection) {
        guard detach(connection.number) else { return }
        input(.closed(connection.number))
    }
}

extension CCSConnection: SessionLink {
    /// Writes what the engine asked for on this app server's stream.
    func perform(_ effect: LinkEffect) {
        switch effect {
        case .write(_, let stanza): write(CCSOutbound.render(stanza, domain: domain), flush: false)
        case .refuseLogin(_, let detail): refuseLogin(detail)
        case .streamError(_, let condition, let text): endStream(condition: condition, text: text)
        case .endStream: endStream()
        case .mcs: break
        }
    }
}

extension MCSConnection: SessionLink {
    /// Writes what the engine asked for on this real client's stream (flushed as it goes).
    func perform(_ effect: LinkEffect) {
        guard case .mcs(_, let stanza) = effect else { return }
        write(stanza)
    }

    func flush() {}
}

extension CCSOutbound {
    /// The XML of a stanza the engine asked for, on a connection of `domain`.
    static func render(_ stanza: CCSStanza, domain: String) -> String {
        switch stanza {
        case .ack(let id, let token): ack(messageID: id, from: token)
        case .nack(let id, let token, let error, let description):
            nack(messageID: id, from: token, error: error, description: description)
        case .upstream(let message, let token, let category):
            upstream(
                sender: message.sender, domain: domain, token: token, messageID: message.id, category: category,
                data: message.data, timeToLive: message.timeToLive)
        case .receipt(let owed, let category):
            CCSOutbound.receipt(
                originalID: owed.originalID, token: owed.token, category: category, sentAt: owed.sentAt,
                domain: domain, sender: owed.sender)
        case .draining: draining
        case .stanzaError(let id, let original, let text): stanzaError(id: id, original: original, text: text)
        }
    }
}
