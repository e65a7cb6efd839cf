/// Giving freed heap back to the system after a large snapshot. Encoding the state of
/// a big fleet makes hundreds of megabytes of short-lived objects; glibc keeps the
/// freed pages, so an idle `serve` with 100,000 phones would stay at the peak it had
/// while saving instead of the size of what it holds.
enum FreedMemory {
    /// Snapshots smaller than this leave the heap alone (trimming walks it all).
    static let largeSnapshotBytes = 4 << 20

    /// Returns freed pages to the system when `snapshotBytes` was large.
    static func release(after snapshotBytes: Int) {
        guard snapshotBytes >= largeSnapshotBytes else { return }
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
