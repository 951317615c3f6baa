import CCurl

/// Typed, checked `curl_easy_setopt` on one handle: every option's result is checked, and the
/// value goes through the shim setter of exactly the C type the option expects.
struct CurlOptions {
    let handle: UnsafeMutableRawPointer

    private func check(_ code: CURLcode, _ option: CURLoption) throws(FrontdoorError) {
        guard code == CURLE_OK else {
            throw .internal("curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    func set(_ option: CURLoption, _ value: Int) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_string(handle, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_off_t(handle, option, curl_off_t(value)), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_ptr(handle, option, value), option)
    }

    /// For CURLOPT_COPYPOSTFIELDS, which copies the bytes before it returns: the pointer of a Swift
    /// array need not outlive the call.
    func set(_ option: CURLoption, copying bytes: [UInt8]) throws(FrontdoorError) {
        let code = bytes.withUnsafeBytes { frontdoor_curl_setopt_ptr(handle, option, $0.baseAddress) }
        try check(code, option)
    }

    func set(_ option: CURLoption, callback: curl_write_callback) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_write_callback(handle, option, callback), option)
    }

    func set(_ option: CURLoption, readCallback: curl_read_callback) throws(FrontdoorError) {
        try check(frontdoor_curl_setopt_read_callback(handle, option, readCallback), option)
    }
}
