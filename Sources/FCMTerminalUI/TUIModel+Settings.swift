import FCMEngine

extension TUIModel {
    /// Shows where the network listeners are, in the header.
    public mutating func setNetworkSummary(_ text: String) {
        networkSummary = text
    }

    /// The folder `w` offers to save sessions in.
    public mutating func setSaveFolder(_ folder: String) {
        saveFolder = folder
    }

    /// The terminal's height, for keys that page by what is on screen.
    public mutating func setScreenHeight(_ height: Int) {
        screenHeight = height
    }
}
