import CCurl
import Foundation

/// The libcurl version string, e.g. "7.88.1".
public var libcurlVersion: String {
    guard let info = curl_version_info(BC_CURLVERSION_NOW), let version = info.pointee.version else { return "unknown" }
    return String(cString: version)
}

/// `curl_global_init` must run exactly once, before any other curl call and before
/// threads start using curl. A global `let` gives us Swift's once-only lazy init.
private let curlGlobalInitResult: CURLcode = curl_global_init(BC_CURL_GLOBAL_ALL)

func ensureCurlInitialized() -> Bool {
    curlGlobalInitResult == CURLE_OK
}

/// A curl easy handle (`CURL *`, which C declares as `void *`), with typed option setters.
struct EasyHandle {
    let raw: UnsafeMutableRawPointer

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode { bc_easy_setopt_long(raw, option, value) }
    @discardableResult
    func set(_ option: CURLoption, _ value: Bool) -> CURLcode { bc_easy_setopt_long(raw, option, value ? 1 : 0) }
    @discardableResult
    func set(_ option: CURLoption, int64 value: Int64) -> CURLcode { bc_easy_setopt_off(raw, option, curl_off_t(value)) }
    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode { bc_easy_setopt_string(raw, option, value) }
    @discardableResult
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) -> CURLcode { bc_easy_setopt_pointer(raw, option, pointer) }

    func infoLong(_ info: CURLINFO) -> Int {
        var value = 0
        return bc_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : 0
    }
    func infoOff(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return bc_easy_getinfo_off(raw, info, &value) == CURLE_OK ? Int64(value) : -1
    }
    func infoString(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard bc_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

/// A `curl_slist` that frees itself.
final class CurlHeaderList {
    private(set) var list: UnsafeMutablePointer<curl_slist>?
    init(_ lines: [String]) {
        for line in lines {
            list = curl_slist_append(list, line)
        }
    }
    deinit { curl_slist_free_all(list) }
}
