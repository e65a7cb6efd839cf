/// Giving freed heap back to the system after many phones were encoded or decoded:
/// that makes hundreds of megabytes of short-lived objects, and glibc keeps the freed
/// pages, so an idle `serve` would stay at the peak it had while saving or reading
/// instead of the size of what it holds.
enum FreedMemory {
    /// Less coded than this leaves the heap alone (trimming walks it all).
    static let largeBytes = 4 << 20

    /// About what one idle phone holds (BENCHMARKS.md): making a fleet again from its
    /// configuration leaves as much behind in maps built and dropped.
    static let phoneBytes = 1_300

    /// Returns freed pages after a saved device was opened: its fleet made again
    /// (`phones`) and `rowBytes` of saved phones decoded.
    static func release(afterOpening phones: Int, rowBytes: Int) {
        release(after: rowBytes + phones * phoneBytes)
    }

    /// Returns freed pages to the system when `codedBytes` was large.
    static func release(after codedBytes: Int) {
        guard codedBytes >= largeBytes else { return }
        #if canImport(Glibc)
            _ = glibcMallocTrim(0)
        #endif
    }
}

#if canImport(Glibc)
    /// glibc's `malloc_trim` (declared in malloc.h, which the Glibc module leaves out).
    @_silgen_name("malloc_trim")
    private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
