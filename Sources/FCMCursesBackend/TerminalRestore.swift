import CNCurses
import Foundation

/// Puts the terminal back as it was, whatever ends the program: quitting, Ctrl-C,
/// SIGTERM, or a crash (the crash then goes on as it would have).
enum TerminalRestore {
    static func install() {
        atexit { TerminalRestore.restore() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                TerminalRestore.restore()
                exit(128 + number)
            }
        }
        for signalNumber in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(signalNumber) { number in
                TerminalRestore.restore()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// Safe to call more than once.
    static func restore() {
        if isendwin() == false {
            _ = curs_set(1)
            endwin()
        }
    }
}
