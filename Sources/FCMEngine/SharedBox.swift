/// A value held once and shared by every copy of what holds it, until one copy changes
/// it (that copy takes a box of its own first): a struct of many references that is
/// copied often costs one reference a copy. Inlinable, so that a module using it for
/// its own values reads them without generic calls.
public struct SharedBox<Value> {
    @usableFromInline
    final class Storage {
        @usableFromInline var value: Value

        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var storage: Storage

    @inlinable public init(_ value: Value) { storage = Storage(value) }

    @inlinable public var value: Value { storage.value }

    /// Changes the value in place when this copy alone holds it, else in a box of its own.
    @inlinable public mutating func change(_ body: (inout Value) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
        body(&storage.value)
    }
}

// A change is made only where one copy alone holds the storage (`change`): a shared box
// is only read, so a box of sendable values may cross threads.
extension SharedBox: @unchecked Sendable where Value: Sendable {}
