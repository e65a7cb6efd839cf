import Foundation

/// What the product says on standard error: one line at a time.
public enum Diagnostics {
    public static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
