/// "10,000": counts in progress lines and tables.
package func groupedThousands(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return value < 0 ? "-" + out : out
}
