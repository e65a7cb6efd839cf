/// What the status line says: a note, or something that did not happen (a refusal by
/// the device or the server, a failure of the shell's), shown in red.
public struct StatusLine: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case note, refusal, failure
    }

    public var text: String
    public var kind: Kind
}
