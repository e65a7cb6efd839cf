/// How a door names a phone. Every door resolves its target once, when it makes
/// the input; nothing falls back to the first phone. The one default there is
/// stated here: a device of one phone is that phone, by name or as `default`, and
/// a command that names no phone is for it.
extension DeviceEngine {
    /// The name that means "the only phone" on a device of one.
    public static let onlyPhoneName = "default"

    /// The phone a command that names none is for: the only one, on a device of one.
    /// Inlined: a call across modules would copy the whole engine to pass it.
    @inlinable public var unnamedPhone: Int? { devices.count == 1 ? 0 : nil }

    /// The phone `name` names, or why none: a fleet's phones are named, and an
    /// unknown name is refused with the names there are.
    public func phoneIndex(named name: String) -> Result<Int, PhoneNameError> {
        if let index = deviceIndex[name] { return .success(index) }
        if name == Self.onlyPhoneName, let index = unnamedPhone { return .success(index) }
        return .failure(PhoneNameError(name: name, phones: phoneNamesForAMessage, count: devices.count))
    }

    /// Why a command that names no phone was refused on a fleet.
    var nameAPhone: String {
        "this device has \(devices.count) phones; name one (\(phoneNamesForAMessage))"
    }

    /// Up to five names, for a message.
    var phoneNamesForAMessage: String {
        Self.phoneNames(devices.prefix(5).map(\.name), of: devices.count)
    }

    /// The first names of `count` phones, for a message: at most five, then "…".
    public static func phoneNames(_ first: [String], of count: Int) -> String {
        first.prefix(5).joined(separator: ", ") + (count > 5 ? ", …" : "")
    }
}

/// A name that names no phone: what was asked, and the phones there are.
public struct PhoneNameError: Error, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    /// Up to five names, joined for a message.
    public var phones: String
    public var count: Int

    public var description: String {
        name == DeviceEngine.onlyPhoneName
            ? "this device has \(count) phones, so \(name) names none of them; name one: \(phones)"
            : "no device is named \(name); the phones are \(phones)"
    }
}
