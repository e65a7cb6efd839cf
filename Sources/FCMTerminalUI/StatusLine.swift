/// What the status line says: a note, or something that did not happen, shown in red:
/// a refusal (a command the device refused) or a failure (an error event, a request the
/// server rejected, an effect the shell could not perform).
public struct StatusLine: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case note, refusal, failure
    }

    public var text: String
    public var kind: Kind
}
