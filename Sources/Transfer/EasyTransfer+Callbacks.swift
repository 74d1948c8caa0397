import CCurl
import Dispatch
import Foundation

/// The C functions curl calls back during a transfer: each finds its ``EasyTransfer`` from the
/// user pointer (unretained: the transfer outlives its easy handle) and hands it the bytes.
private func transfer(_ pointer: UnsafeMutableRawPointer?) -> EasyTransfer? {
    pointer.map { Unmanaged<EasyTransfer>.fromOpaque($0).takeUnretainedValue() }
}

let easyWriteCallback: curl_write_callback = { data, size, count, userdata in
    guard let transfer = transfer(userdata), let data else { return 0 }
    return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

let easyHeaderCallback: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    guard let transfer = transfer(userdata), let data else { return 0 }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    transfer.header(line)
    return length
}

let easyReadCallback: curl_read_callback = { data, size, count, userdata in
    guard let transfer = transfer(userdata), let data else { return BC_CURL_READFUNC_ABORT }
    return transfer.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

let easySeekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let transfer = transfer(userdata), origin == SEEK_SET else { return BC_CURL_SEEKFUNC_FAIL }
    return transfer.seek(to: Int64(offset)) ? BC_CURL_SEEKFUNC_OK : BC_CURL_SEEKFUNC_FAIL
}

let easyProgressCallback: curl_xferinfo_callback = { userdata, _, dlnow, ultotal, ulnow in
    guard let transfer = transfer(userdata) else { return 0 }
    transfer.progress(ulnow: Int64(ulnow), ultotal: Int64(ultotal))
    // A non-zero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
    return transfer.idleExpired(moved: Int64(dlnow) + Int64(ulnow)) ? 1 : 0
}
