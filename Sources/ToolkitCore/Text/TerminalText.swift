/// The one sanitiser for text from outside (Spotify names, server messages) on its way to a
/// terminal: a name must not set the window title, clear the screen, split a line or reverse
/// the text around it. Records on stdout keep the raw value; only human forms are cleaned.
package enum TerminalText {
    /// Every C0 and C1 control (ESC, BEL, newline, U+009B CSI...) and every bidi embedding,
    /// override and isolate (U+202A–U+202E, U+2066–U+2069) becomes a space.
    package static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? " " : scalar)
        }
        return String(scalars)
    }

    /// Whether `scalar` may change what a terminal shows beyond its own glyph.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return scalar.properties.generalCategory == .control
        }
    }
}
