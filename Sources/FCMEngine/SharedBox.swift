/// A value held once and shared by every copy of what holds it, until one copy changes
/// it (that copy takes a box of its own first): a struct of many references that is
/// copied often costs one reference a copy: a push step's fields, an order's platform
/// blocks, the server's real clients. (A message's own fields keep a box of their own,
/// `DownstreamFieldsBox`: the hottest reads of all, measured faster so.) Inlinable, so
/// that a module using it for its own values reads them without generic calls.
public struct SharedBox<Value> {
    @usableFromInline
    final class Storage {
        @usableFromInline var value: Value

        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var storage: Storage

    @inlinable public init(_ value: Value) { storage = Storage(value) }

    /// The value; changed in place when this copy alone holds it, else in a box of its own.
    @inlinable public var value: Value {
        // Yielded where it lies: a getter would copy the whole value (every field
        // retained) to read one field of it.
        _read { yield storage.value }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
            yield &storage.value
        }
    }

    /// Whether the two hold the very same box (and so the same value, without comparing).
    @inlinable public func sharesStorage(with other: Self) -> Bool { storage === other.storage }
}

// A change is made only where one copy alone holds the storage (`value`'s `_modify`): a
// shared box is only read, so a box of sendable values may cross threads.
extension SharedBox: @unchecked Sendable where Value: Sendable {}
