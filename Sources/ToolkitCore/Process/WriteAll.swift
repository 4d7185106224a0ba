#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `writeAll` hands bytes to the kernel.
package enum WriteCall: Sendable {
    /// write(2).
    case write
    /// pwrite(2), the first byte at `offset`; the file position stays where it was.
    case positioned(at: Int)
    /// send(2) on a socket, never raising SIGPIPE (a peer that went away is EPIPE; on Darwin the
    /// socket must have SO_NOSIGPIPE).
    case send
}

/// Writes every byte of `bytes` to `descriptor`, retrying EINTR and short writes. Returns 0 once
/// all went out, else the errno that stopped it (the caller knows what that means for it).
/// With `waitingWhenFull`, EAGAIN (a non-blocking descriptor without room) waits with poll(2)
/// instead; leave it off where EAGAIN means a send timeout ran out.
@discardableResult
package func writeAll(
    _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, using call: WriteCall = .write,
    waitingWhenFull: Bool = false
) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    var done = 0
    while done < bytes.count {
        let pointer = base + done
        let count = bytes.count - done
        let written: Int
        switch call {
        case .write:
            written = write(descriptor, pointer, count)
        case .positioned(let offset):
            written = pwrite(descriptor, pointer, count, off_t(offset + done))
        case .send:
            #if canImport(Glibc)
            written = send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
            #else
            written = send(descriptor, pointer, count, 0)
            #endif
        }
        if written >= 0 {
            done += written  // 0 is not expected for a non-zero count; try again
            continue
        }
        let code = errno
        switch code {
        case EINTR:
            continue
        case EAGAIN where waitingWhenFull, EWOULDBLOCK where waitingWhenFull:
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&entry, 1, -1)
        default:
            return code
        }
    }
    return 0
}
