import CNCurses
import FCMTerminalUI
import Foundation

/// The terminal through ncurses: it paints grids the view made, row by changed row,
/// and decodes keys. It holds no state of the product.
final class CursesScreen {
    private var painted: Grid?
    private var attributes: [CellStyle: Int32] = [:]
    private(set) var width = 0
    private(set) var height = 0

    init(useColor: Bool) {
        setlocale(LC_ALL, "")
        // Follow the terminal's real size and its resizes: exported LINES or COLUMNS
        // would pin ncurses to them.
        unsetenv("LINES")
        unsetenv("COLUMNS")
        use_tioctl(true)
        _ = initscr()
        TerminalRestore.install()
        raw()
        noecho()
        keypad(fcm_stdscr(), true)
        _ = curs_set(0)
        set_escdelay(25)
        if useColor && fcm_has_colors() != 0 {
            start_color()
            use_default_colors()
            attributes = Self.colorAttributes()
        } else {
            attributes = Self.monochromeAttributes()
        }
        measure()
    }

    func measure() {
        height = Int(fcm_lines())
        width = Int(fcm_cols())
    }

    static func colorAttributes() -> [CellStyle: Int32] {
        let pairs: [(CellStyle, Int16, Int16, Int32)] = [
            (.title, Int16(COLOR_CYAN), -1, fcm_attr_bold()), (.header, Int16(COLOR_BLACK), Int16(COLOR_CYAN), 0),
            (.error, Int16(COLOR_RED), -1, fcm_attr_bold()), (.ok, Int16(COLOR_GREEN), -1, 0),
            (.accent, Int16(COLOR_CYAN), -1, 0), (.warning, Int16(COLOR_YELLOW), -1, 0),
            (.key, Int16(COLOR_YELLOW), -1, fcm_attr_bold()),
            // Selected lines in their colour: the colour pair, reversed.
            (.selectedError, Int16(COLOR_RED), -1, fcm_attr_bold() | fcm_attr_reverse()),
            (.selectedOK, Int16(COLOR_GREEN), -1, fcm_attr_reverse()),
            (.selectedWarning, Int16(COLOR_YELLOW), -1, fcm_attr_reverse()),
        ]
        var table = monochromeAttributes()
        for (index, entry) in pairs.enumerated() {
            let pair = Int16(index + 1)
            init_pair(pair, entry.1, entry.2)
            table[entry.0] = fcm_color_pair(pair) | entry.3
        }
        return table
    }

    /// Without colour (or with NO_COLOR): bold, dim, reverse and underline only.
    static func monochromeAttributes() -> [CellStyle: Int32] {
        [
            .normal: fcm_attr_normal(), .dim: fcm_attr_dim(), .bold: fcm_attr_bold(), .title: fcm_attr_bold(),
            .header: fcm_attr_reverse(), .error: fcm_attr_bold() | fcm_attr_underline(), .ok: fcm_attr_normal(),
            .accent: fcm_attr_bold(), .selected: fcm_attr_reverse(), .warning: fcm_attr_bold(),
            .key: fcm_attr_bold(), .selectedError: fcm_attr_reverse() | fcm_attr_underline(),
            .selectedOK: fcm_attr_reverse(), .selectedWarning: fcm_attr_reverse() | fcm_attr_bold(),
        ]
    }

    /// Paints the rows that differ from what is on screen.
    func paint(_ grid: Grid) {
        let full = painted.map { $0.width != grid.width || $0.height != grid.height } ?? true
        if full { _ = clear() }
        for y in 0..<grid.height {
            if !full, let old = painted, (0..<grid.width).allSatisfy({ old[$0, y] == grid[$0, y] }) { continue }
            var x = 0
            while x < grid.width {
                let style = grid[x, y].style
                var run = ""
                let start = x
                while x < grid.width, grid[x, y].style == style {
                    if let character = grid[x, y].character { run.append(character) }
                    x += 1
                }
                _ = fcm_set_attr(attributes[style] ?? 0)
                _ = fcm_move_add(Int32(y), Int32(start), run)
            }
        }
        _ = fcm_set_attr(0)
        _ = refresh()
        painted = grid
    }

    /// Forgets what is on screen, so the next paint redraws everything.
    func invalidate() { painted = nil }

    /// Waits up to `timeout` ms for a key; nil when none came.
    func readKey(timeout: Int) -> TerminalInput? {
        fcm_set_timeout(Int32(timeout))
        var code: UInt32 = 0
        let result = fcm_get_key(&code)
        if result == ERR { return nil }
        if result == KEY_CODE_YES { return Self.functionKey(Int32(code)) }
        return Self.characterKey(code)
    }

    static func functionKey(_ code: Int32) -> TerminalInput? {
        switch code {
        case KEY_RESIZE: return .resize
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case KEY_BTAB: return .key(.backTab)
        case KEY_ENTER: return .key(.enter)
        default: return nil
        }
    }

    static func characterKey(_ code: UInt32) -> TerminalInput? {
        switch code {
        case 9: return .key(.tab)
        case 10, 13: return .key(.enter)
        case 27: return .key(.escape)
        case 8, 127: return .key(.backspace)
        case 1...26:
            return .key(.control(Character(Unicode.Scalar(UInt8(code) + 96))))
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }

    /// OSC 52: asks the terminal to put text on the clipboard.
    func copyToClipboard(_ text: String) {
        let sequence = "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
        FileHandle.standardOutput.write(Data(sequence.utf8))
    }

    func close() {
        TerminalRestore.restore()
    }
}

/// What the terminal reports: a key, or a new size.
enum TerminalInput: Equatable {
    case key(Key)
    case resize
}
