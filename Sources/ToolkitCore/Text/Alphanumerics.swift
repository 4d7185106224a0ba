extension Unicode.Scalar {
    /// A letter, mark or number (Unicode categories L*, M*, N*): Foundation's
    /// `CharacterSet.alphanumerics`, which FoundationEssentials does not have.
    package var isAlphanumeric: Bool {
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
            .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}
