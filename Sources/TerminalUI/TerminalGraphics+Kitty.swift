import Foundation

extension TerminalGraphics {
    /// kitty limits an image to 10,000 pixels a side; larger pictures are scaled down before
    /// they are sent (the viewer sends at most what the screen shows, see `PanoramaViewport`).
    public static let kittyMaxSide = 10_000

    /// The bytes of a kitty frame: what ``KittyPlacements`` says, with each new image made
    /// (its closure called) only when it is transmitted.
    func kittyFrame() -> FrameOutput {
        let requests = requested.map { KittyPlacements.Request(image: $0.placement.key, rect: $0.placement.rect, source: $0.source) }
        let commands = kitty.frame(requests)
        var output = FrameOutput()
        guard !commands.isEmpty else { return output }
        var failed = Set<UInt32>()
        for command in commands {
            switch command {
            case .transmit(let key, let id):
                guard let make = requested.first(where: { $0.placement.key == key })?.image,
                      let image = make(), image.width <= Self.kittyMaxSide, image.height <= Self.kittyMaxSide
                else {
                    failed.insert(id)
                    kitty.transmitFailed(key)
                    continue
                }
                output.bytes += kittyTransmission(image, id: id)
                kitty.transmitted(key, bytes: image.width * image.height * image.format.bytesPerPixel)
                imagesWritten += 1
            case .place(let id, _, _, _) where failed.contains(id):
                continue
            default:
                output.bytes += kittyBytes([command])
            }
        }
        return output
    }

    /// The bytes of commands other than transmissions (deletes and placements).
    func kittyBytes(_ commands: [KittyPlacements.Command]) -> [UInt8] {
        var bytes: [UInt8] = []
        for command in commands {
            switch command {
            case .free(let id):
                bytes += wrap("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\")
            case .remove(let id, let placement):
                bytes += wrap("\u{1B}_Ga=d,d=i,i=\(id),p=\(placement),q=2\u{1B}\\")
            case .removeAll:
                bytes += wrap(Self.kittyDeleteAll)
            case .place(let id, let placement, let rect, let source):
                // Save the cursor, go to the picture's top-left, place without moving the cursor
                // (C=1), and put the cursor back where curses believes it is.
                var keys = "a=p,i=\(id),p=\(placement),c=\(rect.width),r=\(rect.height),C=1,q=2"
                if let source { keys += ",x=\(source.x),y=\(source.y),w=\(source.width),h=\(source.height)" }
                bytes += Array("\u{1B}7\u{1B}[\(rect.y + 1);\(rect.x + 1)H".utf8)
                bytes += wrap("\u{1B}_G" + keys + "\u{1B}\\")
                bytes += Array("\u{1B}8".utf8)
                placementsWritten += 1
            case .transmit:
                break  // only kittyFrame has the pixels
            }
        }
        return bytes
    }

    /// `image` as raw RGB or RGBA under `id`, stored and not shown (`a=t`), in base64 chunks
    /// of 4096 bytes (`m=1` on all but the last), as the protocol asks of escape-code
    /// transmission. Raw, not zlib (`o=z`): it goes once per picture, and compressing a
    /// panorama would hold up its first frame longer than the pty takes to carry it.
    func kittyTransmission(_ image: PixelImage, id: UInt32) -> [UInt8] {
        let rowBytes = image.width * image.format.bytesPerPixel
        let packed: Data
        if image.rowStride == rowBytes {
            packed = Data(image.bytes.prefix(rowBytes * image.height))
        } else {
            var rows = Data(capacity: rowBytes * image.height)
            for y in 0..<image.height { rows.append(contentsOf: image.bytes[(y * image.rowStride)..<(y * image.rowStride + rowBytes)]) }
            packed = rows
        }
        let payload = [UInt8](packed.base64EncodedData())
        let format = image.format == .rgb ? 24 : 32
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + payload.count / 4096 * 40 + 80)
        var start = 0
        repeat {
            let end = min(payload.count, start + 4096)
            let more = end < payload.count ? 1 : 0
            let keys = start == 0 ? "a=t,q=2,f=\(format),s=\(image.width),v=\(image.height),i=\(id),m=\(more)" : "m=\(more),q=2"
            var chunk = Array("\u{1B}_G\(keys);".utf8)
            chunk += payload[start..<end]
            chunk += Array("\u{1B}\\".utf8)
            bytes += wrapsForTmux ? Array(TerminalQuery.tmuxPassthrough(String(decoding: chunk, as: UTF8.self)).utf8) : chunk
            start = end
        } while start < payload.count
        return bytes
    }
}
