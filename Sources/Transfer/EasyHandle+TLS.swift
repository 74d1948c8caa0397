import CCurl

extension EasyHandle {
    /// How the server's certificate is checked: against the pinned key when there is one, else
    /// against the system's CAs and the host name (unless a test turned that off).
    func setTLS(_ configuration: SessionConfiguration) {
        if let pin = configuration.pinnedPublicKey {
            // The pin stands in for the CA and the host name (a club server's certificate is its
            // own, and its address changes with the network); curl checks it whatever VERIFYPEER says.
            set(CURLOPT_SSL_VERIFYPEER, false)
            set(CURLOPT_SSL_VERIFYHOST, 0)
            set(CURLOPT_PINNEDPUBLICKEY, pin)
            // Never a silent step down to plain HTTP, not even by a redirect.
            set(CURLOPT_PROTOCOLS_STR, "https")
            set(CURLOPT_REDIR_PROTOCOLS_STR, "https")
        } else {
            set(CURLOPT_SSL_VERIFYPEER, configuration.verifiesTLSCertificates)
            set(CURLOPT_SSL_VERIFYHOST, configuration.verifiesTLSCertificates ? 2 : 0)
        }
    }
}
