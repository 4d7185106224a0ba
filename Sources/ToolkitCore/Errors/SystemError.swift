#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text for an errno value, for messages like "cannot open 'x': No such file or directory".
package func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}
