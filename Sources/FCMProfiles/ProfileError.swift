/// A place in a profile file.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// What is wrong with a profile, and where: printed as `file:line:column: message`.
/// A profile with several independent mistakes is one error naming them all, in file
/// order, as a compiler lists them.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    /// The other mistakes found in the same reading, after this one.
    public var more: [ProfileError] = []

    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    /// Every mistake, this one first.
    public var all: [ProfileError] {
        var first = self
        first.more = []
        return [first] + more
    }

    public var description: String {
        guard !more.isEmpty else { return "\(location): \(message)" }
        return (all.map { "\($0.location): \($0.message)" } + ["\(all.count) mistakes in \(location.file)"])
            .joined(separator: "\n")
    }
}

/// The mistakes found while reading a profile: each independent part is read on its
/// own, so one mistake does not hide the next.
struct ProfileMistakes {
    private(set) var found: [ProfileError] = []

    var isEmpty: Bool { found.isEmpty }

    /// `body`'s result, or nil when it found a mistake (kept).
    mutating func check<T>(_ body: () throws(ProfileError) -> T) -> T? {
        do {
            return try body()
        } catch {
            found += error.all
            return nil
        }
    }

    mutating func add(_ error: ProfileError) { found += error.all }

    /// Throws every mistake found, in file order, as one error.
    func throwIfAny() throws(ProfileError) {
        let sorted = found.enumerated().sorted {
            ($0.element.location.line, $0.element.location.column, $0.offset)
                < ($1.element.location.line, $1.element.location.column, $1.offset)
        }.map(\.element)
        guard var first = sorted.first else { return }
        first.more = Array(sorted.dropFirst())
        throw first
    }
}
