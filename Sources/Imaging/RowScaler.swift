/// Pixels that arrive a row (or part of a row) at a time, composed over white and scaled down
/// by area average into an ``RGBImage`` of the output size as they arrive, so a large PNG or GIF
/// never needs a buffer of its full size.
///
/// Source row `y` goes to output row `y * height / sourceHeight`, column `x` to
/// `x * width / sourceWidth`. Rows may come in any order (an interlaced PNG's passes, an
/// interlaced GIF's): each output pixel sums the source pixels that fall in it and is divided
/// by how many it has when the image is taken. Where the output is the source's size, pixels
/// are written straight through.
struct RowScaler {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    private var pixels: [UInt8]
    /// Sums of red, green, blue per output pixel, and how many source pixels each holds.
    private var sums: [UInt32] = []
    private var counts: [UInt32] = []
    private let direct: Bool
    /// Output column of each source column.
    private let columns: [Int32]

    /// A scaler of `sourceWidth`×`sourceHeight` into `width`×`height` (no larger), white where
    /// no source pixel comes.
    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = max(1, min(width, sourceWidth))
        self.height = max(1, min(height, sourceHeight))
        direct = self.width == sourceWidth && self.height == sourceHeight
        pixels = [UInt8](repeating: 255, count: self.width * self.height * 3)
        if direct {
            columns = []
        } else {
            sums = [UInt32](repeating: 0, count: self.width * self.height * 3)
            counts = [UInt32](repeating: 0, count: self.width * self.height)
            let (w, sw) = (self.width, sourceWidth)
            columns = (0..<sourceWidth).map { Int32($0 * w / sw) }
        }
    }

    /// Straight (not premultiplied) RGBA pixels of source row `y`: `count` of them, the first at
    /// column `x`, then every `step` columns (an interlaced pass), read from `rgba` at `stride`
    /// bytes apart (4 for packed RGBA).
    mutating func add(row y: Int, x: Int = 0, step: Int = 1, count: Int, rgba: UnsafePointer<UInt8>, stride: Int = 4) {
        guard y >= 0, y < sourceHeight, x >= 0, step > 0, count > 0 else { return }
        let n = min(count, (sourceWidth - x + step - 1) / step)
        guard n > 0 else { return }
        // Over white: c·a + 255·(1 − a), in 0…255.
        @inline(__always) func over(_ c: UInt8, _ a: UInt32) -> UInt32 { (UInt32(c) * a + 255 * (255 - a) + 127) / 255 }
        if direct {
            pixels.withUnsafeMutableBufferPointer { out in
                var source = rgba
                var index = (y * width + x) * 3
                for _ in 0..<n {
                    let a = UInt32(source[3])
                    if a == 255 {
                        out[index] = source[0]; out[index + 1] = source[1]; out[index + 2] = source[2]
                    } else {
                        out[index] = UInt8(over(source[0], a)); out[index + 1] = UInt8(over(source[1], a)); out[index + 2] = UInt8(over(source[2], a))
                    }
                    index += 3 * step
                    source += stride
                }
            }
        } else {
            let rowBase = (y * height / sourceHeight) * width
            sums.withUnsafeMutableBufferPointer { sums in
                counts.withUnsafeMutableBufferPointer { counts in
                    columns.withUnsafeBufferPointer { columns in
                        var source = rgba
                        var sx = x
                        for _ in 0..<n {
                            let a = UInt32(source[3])
                            let cell = rowBase + Int(columns[sx])
                            if a == 255 {
                                sums[cell * 3] &+= UInt32(source[0]); sums[cell * 3 + 1] &+= UInt32(source[1]); sums[cell * 3 + 2] &+= UInt32(source[2])
                            } else {
                                sums[cell * 3] &+= over(source[0], a); sums[cell * 3 + 1] &+= over(source[1], a); sums[cell * 3 + 2] &+= over(source[2], a)
                            }
                            counts[cell] &+= 1
                            sx += step
                            source += stride
                        }
                    }
                }
            }
        }
    }

    /// Premultiplied pixels in cairo's ARGB32 (a native-endian `UInt32` per pixel) of source row
    /// `y`, turned into straight RGBA over white (premultiplied over white: c + 255 − a).
    mutating func add(row y: Int, premultipliedARGB row: UnsafePointer<UInt32>, count: Int) {
        let n = min(count, sourceWidth)
        guard n > 0 else { return }
        var rgba = [UInt8](repeating: 255, count: n * 4)
        for sx in 0..<n {
            let pixel = row[sx]
            let a = pixel >> 24
            rgba[sx * 4] = UInt8(min(255, (pixel >> 16 & 0xFF) + 255 - a))
            rgba[sx * 4 + 1] = UInt8(min(255, (pixel >> 8 & 0xFF) + 255 - a))
            rgba[sx * 4 + 2] = UInt8(min(255, (pixel & 0xFF) + 255 - a))
        }
        rgba.withUnsafeBufferPointer { add(row: y, count: n, rgba: $0.baseAddress!) }
    }

    /// The image as far as it arrived (output pixels no source pixel reached stay white).
    mutating func take() -> RGBImage {
        if !direct {
            for cell in 0..<(width * height) where counts[cell] > 0 {
                let n = counts[cell]
                for channel in 0..<3 { pixels[cell * 3 + channel] = UInt8((sums[cell * 3 + channel] + n / 2) / n) }
            }
            sums = []
            counts = []
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}
