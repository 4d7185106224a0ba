extension String {
    /// Without the spaces at its end: a table row whose last cells are blank ends at its last
    /// visible character.
    package func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
