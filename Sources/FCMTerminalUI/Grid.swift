/// How a cell is drawn; the backend maps these to colours or, without colour, to
/// bold, dim and reverse.
public enum CellStyle: UInt8, Sendable, CaseIterable {
    case normal, dim, bold, title, header, error, ok, accent, selected, warning, key
    /// A selected line that keeps its colour: an error, a success, a warning.
    case selectedError, selectedOK, selectedWarning

    /// This style on the line being looked at (reverse video, in its colour).
    public var selected: CellStyle {
        switch self {
        case .error, .selectedError: .selectedError
        case .ok, .selectedOK: .selectedOK
        case .warning, .selectedWarning: .selectedWarning
        default: .selected
        }
    }
}

/// One terminal cell: a character (empty for the right half of a wide one).
public struct Cell: Sendable, Equatable {
    public var character: Character?
    public var style: CellStyle

    public static let blank = Cell(character: " ", style: .normal)
}

/// A screen as a grid of cells: the view draws into it, the ncurses backend only
/// paints it, and tests read it as lines of text.
public struct Grid: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes text at (x, y), clipped to `limit` columns (and the grid); returns the
    /// columns used. A wide character that would not fit whole is left out.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .normal, limit: Int? = nil) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let end = min(width, x + (limit ?? width))
        var column = x
        if TextWidth.isPrintableASCII(text) {
            for byte in text.utf8 {
                if column >= end { break }
                if column >= 0 {
                    cells[y * width + column] = Cell(character: Character(Unicode.Scalar(byte)), style: style)
                }
                column += 1
            }
            return column - x
        }
        for character in text {
            let printable: Character = character.isNewline || character == "\t" ? " " : character
            let w = TextWidth.columns(of: printable)
            if w == 0 { continue }
            if column + w > end { break }
            if column >= 0 {
                cells[y * width + column] = Cell(character: printable, style: style)
                if w == 2 { cells[y * width + column + 1] = Cell(character: nil, style: style) }
            }
            column += w
        }
        return column - x
    }

    /// Sets the style of a run of cells, keeping their characters.
    public mutating func paint(x: Int, y: Int, count: Int, style: CellStyle) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, x + count) {
            cells[y * width + column].style = style
        }
    }

    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, style: CellStyle = .normal) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) {
                cells[row * width + column] = Cell(character: " ", style: style)
            }
        }
    }

    /// A box with a title in its top border.
    public mutating func box(x: Int, y: Int, width w: Int, height h: Int, title: String, focused: Bool) {
        guard w >= 2, h >= 2 else { return }
        let style: CellStyle = focused ? .accent : .dim
        func set(_ character: Character, _ column: Int, _ row: Int) {
            guard column >= 0, column < width, row >= 0, row < height else { return }
            cells[row * width + column] = Cell(character: character, style: style)
        }
        for column in (x + 1)..<(x + w - 1) {
            set("─", column, y)
            set("─", column, y + h - 1)
        }
        for row in (y + 1)..<(y + h - 1) {
            set("│", x, row)
            set("│", x + w - 1, row)
        }
        set("┌", x, y)
        set("┐", x + w - 1, y)
        set("└", x, y + h - 1)
        set("┘", x + w - 1, y + h - 1)
        put(
            " " + TextWidth.fit(title, width: w - 6) + " ", x: x + 2, y: y, style: focused ? .title : .bold,
            limit: w - 4)
    }

    /// The screen as text, one line per row, trailing spaces removed.
    public var lines: [String] {
        (0..<height).map { row in
            var line = ""
            for column in 0..<width {
                if let character = cells[row * width + column].character { line.append(character) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    public var text: String { lines.joined(separator: "\n") }
}
