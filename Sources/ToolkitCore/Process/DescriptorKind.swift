#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an open file descriptor is, as the decisions about streams need it: an empty pipe means
/// a pipeline went wrong upstream, a regular file cannot interleave with a terminal reader, a
/// terminal's Ctrl-C is for a pipeline's first stage.
package enum DescriptorKind: Sendable, Equatable {
    case pipe, regularFile, socket, directory, other
    /// Closed or not a descriptor.
    case none

    package init(_ fileDescriptor: Int32) {
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else {
            self = .none
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFIFO: self = .pipe
        case S_IFREG: self = .regularFile
        case S_IFSOCK: self = .socket
        case S_IFDIR: self = .directory
        default: self = .other
        }
    }
}
