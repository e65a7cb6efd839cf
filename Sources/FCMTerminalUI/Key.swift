/// A key press, as the backend decodes it.
public enum Key: Sendable, Equatable {
    case character(Character)
    case enter, escape, backspace, delete, tab, backTab
    case up, down, left, right, pageUp, pageDown, home, end
    /// Ctrl plus a letter, e.g. `.control("n")`.
    case control(Character)
}
