import DropboxWire
import ArgumentParser
import ClubServer
import Foundation
import Imaging
import Transfer

/// Benchmarks of the club server: a 10,000-file listing, a panorama thumbnail, and a 1 GiB
/// download with the curl CLI from our server and from nginx serving the same file.
struct ServerBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server", abstract: "Club server figures: list_folder, thumbnails, download vs nginx.")

    @Option(help: "Download size for the nginx comparison.") var size: String = "1GiB"
    @Option(help: "Repetitions per figure; the table shows the median.") var runs: Int = 5
    @Option(help: "The curl CLI.") var curl: String = "/usr/bin/curl"
    @Option(help: "The nginx binary (Debian's nginx-light).") var nginx: String = "/usr/sbin/nginx"

    func run() throws {
        guard let bytes = parseSize(size), bytes > 0 else { throw ValidationError("bad --size \(size)") }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("server-bench-\(getpid())")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/many"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }

        FileHandle.standardError.write(Data("server bench: preparing 10,000 notes, a panorama and a \(format(bytes: bytes)) file\n".utf8))
        for index in 0..<10_000 {
            let url = root.appendingPathComponent("byteclub/many/note-\(String(format: "%05d", index)).txt")
            try Data("note \(index)\n".utf8).write(to: url)
        }
        let panorama = try makePanorama(width: 8000, height: 2000)
        try panorama.write(to: root.appendingPathComponent("byteclub/pano.jpg"))
        let big = root.appendingPathComponent("byteclub/big.bin")
        try writePatternFile(big, bytes: bytes)

        let token = "bench"
        let server = try blocking { try await ClubServer.start(ClubServerConfiguration(root: root.path, token: token)) }
        defer { blocking { await server.stop() } }
        var configuration = SessionConfiguration.ephemeral
        configuration.additionalHeaders = ["Authorization": "Bearer \(token)"]
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        func call(_ endpoint: String, json: String? = nil, arg: String? = nil) throws -> (Data, Double) {
            var headers: [String: String] = [:]
            var body: Data? = nil
            if let json { headers["Content-Type"] = "application/json"; body = Data(json.utf8) }
            if let arg { headers["Dropbox-API-Arg"] = arg; body = Data() }
            let request = Request(url: server.baseURL.appendingPathComponent(endpoint), method: "POST", headers: headers, body: body)
            let start = DispatchTime.now().uptimeNanoseconds
            let (data, _) = try blocking { try await session.data(for: request) }
            return (data, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }

        // list_folder: the first page, and the whole 10,000 through continue.
        var firstPage: [Double] = []
        var wholeListing: [Double] = []
        for run in 0...runs {
            let start = DispatchTime.now().uptimeNanoseconds
            var (data, first) = try call(Endpoint.listFolder.relativePath, json: #"{"path":"/byteclub/many","limit":2000}"#)
            var count = 0
            while true {
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                count += (object["entries"] as? [Any])?.count ?? 0
                guard object["has_more"] as? Bool == true, let cursor = object["cursor"] as? String else { break }
                (data, _) = try call(Endpoint.listFolderContinue.relativePath, json: "{\"cursor\":\"\(cursor)\"}")
            }
            guard count == 10_000 else { throw BenchError("listed \(count) of 10000") }
            if run > 0 {
                // Run 0 warms the content-hash cache (a fresh server hashes every file once).
                firstPage.append(first)
                wholeListing.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }

        var thumbnails: [Double] = []
        for _ in 0..<runs {
            let (data, ms) = try call(Endpoint.thumbnail.relativePath, arg: #"{"resource":{".tag":"path","path":"/byteclub/pano.jpg"},"format":"jpeg","size":"w256h256","mode":"strict"}"#)
            guard (try? JPEG.dimensions(of: data))?.width == 256 else { throw BenchError("bad thumbnail") }
            thumbnails.append(ms)
        }

        // 1 GiB download: curl from us, curl from nginx, same file, same run.
        let ours = [curl, "-sS", "-o", "/dev/null", "-w", "%{speed_download}", "-X", "POST", "-H", "Authorization: Bearer \(token)",
                    "-H", "Dropbox-API-Arg: {\"path\":\"/byteclub/big.bin\"}", server.baseURL.appendingPathComponent(Endpoint.download.relativePath).absoluteString]
        var ourRates: [Double] = []
        for _ in 0..<max(1, min(runs, 3)) {
            let result = try spawnAndMeasure(ours)
            guard result.exitStatus == 0 else { throw BenchError("curl failed against byteclub serve") }
            ourRates.append(Double(result.stdout) ?? 0)
        }
        var nginxRates: [Double] = []
        var nginxNote = ""
        if FileManager.default.isExecutableFile(atPath: nginx) {
            let nginxServer = try NginxServer(binary: nginx, root: root.appendingPathComponent("byteclub"), scratch: base)
            defer { nginxServer.stop() }
            for _ in 0..<max(1, min(runs, 3)) {
                let result = try spawnAndMeasure([curl, "-sS", "-o", "/dev/null", "-w", "%{speed_download}", "http://127.0.0.1:\(nginxServer.port)/big.bin"])
                guard result.exitStatus == 0 else { throw BenchError("curl failed against nginx") }
                nginxRates.append(Double(result.stdout) ?? 0)
            }
        } else {
            nginxNote = " (nginx not installed: `apt-get install nginx-light`)"
        }

        print("Club server on loopback, median of \(runs) run(s) (downloads: \(max(1, min(runs, 3)))).")
        print("")
        print("| figure | result | target |")
        print("|---|---:|---|")
        print(String(format: "| list_folder, first page of 2,000 (10,000 files) | %.1f ms | — |", median(firstPage) ?? 0))
        print(String(format: "| list_folder + continue, all 10,000 files | %.1f ms | ≤ 150 ms |", median(wholeListing) ?? 0))
        print(String(format: "| get_thumbnail_v2 w256h256 of an 8000×2000 JPEG | %.1f ms | ≤ 60 ms |", median(thumbnails) ?? 0))
        let ourRate = median(ourRates) ?? 0
        print(String(format: "| download %@ with curl, byteclub serve | %.0f MB/s | — |", format(bytes: bytes), ourRate / 1e6))
        if let nginxRate = median(nginxRates) {
            print(String(format: "| download %@ with curl, nginx | %.0f MB/s | — |", format(bytes: bytes), nginxRate / 1e6))
            print(String(format: "| byteclub / nginx throughput | %.2f× | ≥ 0.7× |", ourRate / nginxRate))
        } else {
            print("| download with curl, nginx | not run\(nginxNote) | — |")
        }
    }

    private func makePanorama(width: Int, height: Int) throws -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let horizon = height / 2 + Int(200 * sin(Double(x) / 300))
                if y < horizon {
                    pixels[index] = UInt8(60 + y * 120 / height); pixels[index + 1] = UInt8(120 + y * 80 / height); pixels[index + 2] = 230
                } else {
                    pixels[index] = 70; pixels[index + 1] = UInt8(90 + (x * 7 + y * 3) % 40); pixels[index + 2] = 60
                }
            }
        }
        return try JPEG.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 85)
    }
}

/// nginx serving one folder on a free loopback port, for the download comparison.
final class NginxServer {
    let port: Int
    private let process = Process()

    init(binary: String, root: URL, scratch: URL) throws {
        let prefix = scratch.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = freePort()
        let config = """
        daemon off;
        master_process off;
        worker_processes 1;
        error_log \(prefix.path)/logs/error.log;
        pid \(prefix.path)/nginx.pid;
        events { worker_connections 64; }
        http {
            access_log off;
            sendfile on;
            client_body_temp_path \(prefix.path)/body;
            proxy_temp_path \(prefix.path)/proxy;
            fastcgi_temp_path \(prefix.path)/fastcgi;
            uwsgi_temp_path \(prefix.path)/uwsgi;
            scgi_temp_path \(prefix.path)/scgi;
            server { listen 127.0.0.1:\(port); root \(root.path); }
        }
        """
        let configURL = prefix.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", prefix.path, "-c", configURL.path]
        try process.run()
        // Poll until it accepts connections (with a deadline).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if canConnect(port: port) { return }
            usleep(10_000)
        }
        process.terminate()
        throw BenchError("nginx did not start; see \(prefix.path)/logs/error.log")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
}

/// Runs async work from this synchronous command and waits for it.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Box<Result<T, any Error>>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { result.value = .success(try await work()) } catch { result.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result.value!.get()
}

func blocking(_ work: @escaping @Sendable () async -> Void) {
    _ = try? blocking { () async throws -> Bool in await work(); return true }
}

/// A value handed from a Task to the thread waiting on its semaphore.
final class Box<T>: @unchecked Sendable {
    // @unchecked Sendable: written once by the task before it signals, read after the wait.
    var value: T?
}

/// A file of `bytes` bytes of a fixed pattern, written 8 MiB at a time.
func writePatternFile(_ url: URL, bytes: Int64) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchError("cannot create \(url.path)") }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let chunk = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    var remaining = bytes
    while remaining > 0 {
        let count = Int(min(Int64(chunk.count), remaining))
        try handle.write(contentsOf: chunk.prefix(count))
        remaining -= Int64(count)
    }
}
