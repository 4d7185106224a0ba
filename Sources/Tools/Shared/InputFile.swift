import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file named on the command line, opened to be read: songcount's logs, and the files
/// `spotify-nowplaying history` imports.
enum InputFile {
    /// The open descriptor, or exit 66 naming the file: it cannot be opened, or is a directory.
    static func openForReading(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ToolError.noInput("cannot open '\(path)': \(systemErrorMessage(errno))")
        }
        if DescriptorKind(descriptor) == .directory {
            close(descriptor)
            throw ToolError.noInput("cannot read '\(path)': Is a directory")
        }
        return descriptor
    }
}
