import Crypto
import Foundation
import Durable
import NIOSSL
import SwiftASN1
import X509

/// The server's TLS certificate and key, and the fingerprint clients pin.
///
/// A club server has no name a public CA would vouch for (it is a laptop on a café's Wi-Fi), so
/// it makes its own certificate on first start, as Syncthing does, and its members pin the
/// public key inside it. The pin is what proves they reach this server: it is the SHA-256 of
/// the key's SubjectPublicKeyInfo, exactly what libcurl's `CURLOPT_PINNEDPUBLICKEY` and
/// `curl --pinnedpubkey` compare, written `sha256//BASE64`.
public struct ServerIdentity: Sendable {
    public var certificatePEM: String
    public var privateKeyPEM: String
    /// `sha256//…` of the certificate's public key.
    public var pin: String

    /// The certificate under `stateDirectory/tls/`, made there (0600, in a 0700 folder) when
    /// there is none. The key outlives restarts: a new key would make every member's pin fail.
    public static func loadOrCreate(stateDirectory: String, hostNames: [String]) throws -> ServerIdentity {
        let directory = stateDirectory + "/tls"
        let certPath = directory + "/cert.pem"
        let keyPath = directory + "/key.pem"
        if FileManager.default.fileExists(atPath: certPath) || FileManager.default.fileExists(atPath: keyPath) {
            return try load(certificate: certPath, key: keyPath)
        }
        try PrivateFiles.folder(directory)
        let made = try generate(hostNames: hostNames)
        // The key first: a certificate without its key would be refused at the next start.
        try writePrivate(made.privateKeyPEM, to: keyPath)
        try writePrivate(made.certificatePEM, to: certPath)
        return made
    }

    /// A certificate and key given by the operator (`serve --tls-cert/--tls-key`), PEM files.
    public static func load(certificate certPath: String, key keyPath: String) throws -> ServerIdentity {
        guard let certificate = FileManager.default.contents(atPath: certPath) else { throw IdentityError("cannot read the certificate \(certPath)") }
        guard let key = FileManager.default.contents(atPath: keyPath) else { throw IdentityError("cannot read the private key \(keyPath)") }
        let certificatePEM = String(decoding: certificate, as: UTF8.self)
        let identity = ServerIdentity(certificatePEM: certificatePEM, privateKeyPEM: String(decoding: key, as: UTF8.self),
                                      pin: try pin(ofCertificatePEM: certificatePEM))
        // Checked now, so a wrong pair is a clear message at start, not a failed handshake later.
        _ = try identity.tlsConfiguration()
        return identity
    }

    /// A new P-256 key and a self-signed certificate for `hostNames` (names and IP addresses),
    /// valid for ten years. It is its own CA (path length 0), so `curl --cacert` and Python's
    /// strict X.509 checks accept it as the trust anchor it is.
    public static func generate(hostNames: [String]) throws -> ServerIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("byteclub club server")
            OrganizationName("byteclub")
        }
        let now = Date()
        let names = alternativeNames(hostNames)
        let publicKey = Certificate.PublicKey(key.publicKey)
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectKeyIdentifier(hash: publicKey)
            SubjectAlternativeNames(names)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3650 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        let certificatePEM = try certificate.serializeAsPEM().pemString + "\n"
        return ServerIdentity(certificatePEM: certificatePEM, privateKeyPEM: key.pemRepresentation + "\n", pin: try pin(of: certificate))
    }

    /// The pin of the first certificate in a PEM file.
    public static func pin(ofCertificatePEM text: String) throws -> String {
        do {
            let documents = try PEMDocument.parseMultiple(pemString: text)
            guard let first = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else { throw IdentityError("no certificate in it") }
            return try pin(of: Certificate(derEncoded: first.derBytes))
        } catch let error as IdentityError {
            throw error
        } catch {
            throw IdentityError("not a PEM certificate (\(error))")
        }
    }

    static func pin(of certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate.publicKey)
        return "sha256//" + Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    /// NIO's server configuration for this certificate and key (TLS 1.2 at least).
    public func tlsConfiguration() throws -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
            let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return configuration
        } catch {
            throw IdentityError("the certificate and key do not make a TLS configuration (\(error))")
        }
    }

    private static func alternativeNames(_ hostNames: [String]) -> [GeneralName] {
        var seen = Set<String>()
        return (["localhost", "127.0.0.1", "::1"] + hostNames).compactMap { host -> GeneralName? in
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            guard !bare.isEmpty, bare != "0.0.0.0", bare != "::", seen.insert(bare.lowercased()).inserted else { return nil }
            if let bytes = ipBytes(bare) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))) }
            return .dnsName(bare)
        }
    }

    /// An IPv4 or IPv6 address's bytes, or nil for a name.
    private static func ipBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func writePrivate(_ text: String, to path: String) throws {
        // Never over an existing key: a certificate members have pinned is not replaced by accident.
        guard !FileManager.default.fileExists(atPath: path) else { throw IdentityError("cannot create \(path): it exists") }
        do {
            try DurableFile.write(Array(text.utf8), to: path)
        } catch {
            throw IdentityError(error.description)
        }
    }
}

/// Why the server's certificate could not be made or read.
public struct IdentityError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
