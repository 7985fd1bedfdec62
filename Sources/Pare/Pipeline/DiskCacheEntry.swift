import CZlib
import PareCore
import PareJPEG
import PareEXIF
import ParePNG

/// One file of the disk cache: an encoded thumbnail with what `Thumbnail` says about it,
/// behind a checksum so that a torn write or a damaged sector is found on read.
///
/// Layout, every integer little-endian, in this order (`Field` names each one):
///
///     magic       8 bytes  "PareTHM1"
///     checksum    u32      CRC-32 (ISO 3309, zlib's) of every byte after this field
///     keyLength   u32      bytes of the key
///     reasonLength u32
///     payloadLength u32
///     encoding    u8       1 PNG, 2 JPEG
///     sourceKind  u8       0 EXIF thumbnail, 1 MPF preview, 2 main JPEG image, 3 full image
///     sourceValue u32      the MPF index, or the DCT scale's block size (1, 2, 4, 8)
///     orientation u8       EXIF orientation applied (1–8)
///     width, height u32
///     key, reason (UTF-8), payload
///
/// The lengths are checked against the file's size before anything is read past them, and
/// the checksum before any field is trusted, so a truncated or bit-flipped file is refused,
/// never decoded.
@_spi(CommandLine) public struct DiskCacheEntry: Equatable, Sendable {
    public enum Encoding: UInt8, Sendable {
        case png = 1
        case jpeg = 2

        public var fileExtension: String { self == .png ? "png" : "jpg" }
    }

    static let magic = Array("PareTHM1".utf8)

    /// The fixed part's fields in file order, with their sizes.
    enum Field: CaseIterable {
        case magic, checksum, keyLength, reasonLength, payloadLength, encoding, sourceKind, sourceValue,
             orientation, width, height

        var size: Int {
            switch self {
            case .magic: return 8
            case .encoding, .sourceKind, .orientation: return 1
            default: return 4
            }
        }

        var offset: Int {
            var offset = 0
            for field in Field.allCases {
                if field == self { return offset }
                offset += field.size
            }
            return offset
        }

        /// Where the checksummed bytes begin.
        static let checksummedFrom = Field.keyLength.offset
        /// Size of the fixed part: the variable fields follow it.
        static let fixedSize = Field.allCases.reduce(0) { $0 + $1.size }
    }

    public var key: ThumbnailKey
    public var encoding: Encoding
    public var source: ThumbnailSource
    public var reason: String
    public var orientation: Orientation
    public var width: Int
    public var height: Int
    public var payload: [UInt8]

    /// The file's bytes.
    public func serialized() -> [UInt8] {
        let keyBytes = Array(key.description.utf8), reasonBytes = Array(reason.utf8)
        var file = [UInt8]()
        file.reserveCapacity(Field.fixedSize + keyBytes.count + reasonBytes.count + payload.count)
        func put(_ value: Int, _ field: Field) {
            precondition(file.count == field.offset, "fields out of order")
            for index in 0 ..< field.size { file.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        let (kind, value) = Self.code(of: source)
        file += Self.magic
        put(0, .checksum)
        put(keyBytes.count, .keyLength)
        put(reasonBytes.count, .reasonLength)
        put(payload.count, .payloadLength)
        put(Int(encoding.rawValue), .encoding)
        put(kind, .sourceKind)
        put(value, .sourceValue)
        put(orientation.rawValue, .orientation)
        put(width, .width)
        put(height, .height)
        file += keyBytes
        file += reasonBytes
        file += payload
        let checksum = Self.checksum(file, from: Field.checksummedFrom)
        for index in 0 ..< Field.checksum.size {
            file[Field.checksum.offset + index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(index)))
        }
        return file
    }

    /// Why a file is not a sound entry.
    public enum Damage: Error, Equatable {
        case tooShort, badMagic, lengthsDisagree, checksumMismatch, badField
    }

    /// Parses and verifies a file's bytes.
    public init(parsing file: [UInt8]) throws(Damage) {
        guard file.count >= Field.fixedSize else { throw .tooShort }
        guard file[0 ..< Self.magic.count].elementsEqual(Self.magic) else { throw .badMagic }
        func get(_ field: Field) -> Int {
            var value = 0
            for index in 0 ..< field.size { value |= Int(file[field.offset + index]) << (8 * index) }
            return value
        }
        let keyLength = get(.keyLength), reasonLength = get(.reasonLength), payloadLength = get(.payloadLength)
        guard Field.fixedSize + keyLength + reasonLength + payloadLength == file.count else { throw .lengthsDisagree }
        guard UInt32(get(.checksum)) == Self.checksum(file, from: Field.checksummedFrom) else { throw .checksumMismatch }
        guard let encoding = Encoding(rawValue: UInt8(get(.encoding))),
              let source = Self.source(kind: get(.sourceKind), value: get(.sourceValue)),
              let orientation = Orientation(rawValue: get(.orientation)) else { throw .badField }
        let keyStart = Field.fixedSize, reasonStart = keyStart + keyLength, payloadStart = reasonStart + reasonLength
        self.key = ThumbnailKey(String(decoding: file[keyStart ..< reasonStart], as: UTF8.self))
        self.reason = String(decoding: file[reasonStart ..< payloadStart], as: UTF8.self)
        self.payload = Array(file[payloadStart...])
        self.encoding = encoding
        self.source = source
        self.orientation = orientation
        self.width = get(.width)
        self.height = get(.height)
    }

    public init(key: ThumbnailKey, encoding: Encoding, source: ThumbnailSource, reason: String, orientation: Orientation,
         width: Int, height: Int, payload: [UInt8]) {
        self.key = key
        self.encoding = encoding
        self.source = source
        self.reason = reason
        self.orientation = orientation
        self.width = width
        self.height = height
        self.payload = payload
    }

    static func checksum(_ bytes: [UInt8], from start: Int) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            // SAFETY: start ≤ buffer.count (the fixed part was checked present), so the range
            // [start, count) lies within the buffer.
            UInt32(truncatingIfNeeded: crc32(crc32(0, nil, 0), buffer.baseAddress! + start, uInt(buffer.count - start)))
        }
    }

    private static func code(of source: ThumbnailSource) -> (kind: Int, value: Int) {
        switch source {
        case .exifThumbnail: return (0, 0)
        case let .mpfPreview(index): return (1, index)
        case let .mainImage(scale): return (2, scale.rawValue)
        case .fullImage: return (3, 0)
        case let .rawPreview(index): return (4, index)
        }
    }

    private static func source(kind: Int, value: Int) -> ThumbnailSource? {
        switch kind {
        case 0: return .exifThumbnail
        case 1: return .mpfPreview(index: value)
        case 2: return JPEGScale(rawValue: value).map { .mainImage($0) }
        case 3: return .fullImage
        case 4: return .rawPreview(index: value)
        default: return nil
        }
    }
}

extension DiskCacheEntry {
    /// A thumbnail and its encoded bytes, as an entry.
    public init(thumbnail: Thumbnail, key: ThumbnailKey, encoding: Encoding, payload: [UInt8]) {
        self.init(key: key, encoding: encoding, source: thumbnail.source, reason: thumbnail.reason,
                  orientation: thumbnail.appliedOrientation, width: thumbnail.image.width, height: thumbnail.image.height,
                  payload: payload)
    }

    /// A thumbnail encoded as `ThumbnailOutput.automatic` says (a gain map kept goes into the JPEG's MPF
    /// container, and comes back out with `gainMap(ledger:)`).
    init(automatic thumbnail: Thumbnail, key: ThumbnailKey, ledger: MemoryLedger = MemoryLedger()) throws(PareError) {
        let encoding: Encoding = thumbnail.image.format.hasAlpha ? .png : .jpeg
        let payload = try ImageEncoding.encode(thumbnail, as: encoding == .png ? .png : .jpeg, ledger: ledger).bytes
        self.init(thumbnail: thumbnail, key: key, encoding: encoding, payload: payload)
    }

    /// The gain map a JPEG payload carries (an entry made with `GainMapHandling.keep`),
    /// decoded, counted by `ledger`; nil when there is none.
    func gainMap(ledger: MemoryLedger) throws(PareError) -> GainMapThumbnail? {
        guard encoding == .jpeg, let metadata = try? EXIFReader.readJPEG(MemoryByteSource(payload)),
              let info = metadata.gainMap, info.metadata != nil else { return nil }
        var builder = ImageBuilder(ledger: ledger)
        let slice: ByteSourceSlice<MemoryByteSource>
        do throws(CoreError) {
            slice = try ByteSourceSlice(MemoryByteSource(payload), offset: info.offset, count: info.length)
        } catch {
            throw PareError(error)
        }
        do throws(JPEGError) {
            var decoder = try JPEGDecoder(source: slice, ledger: ledger)
            try decoder.decode(scale: .full, into: &builder)
        } catch {
            throw PareError(error)
        }
        guard let image = builder.image else { return nil }
        return GainMapThumbnail(image: image, source: info)
    }

    /// The payload decoded back to pixels, counted by `ledger`. Fails if it does not decode
    /// to the size the entry states.
    public func image(ledger: MemoryLedger) throws(PareError) -> Image {
        var builder = ImageBuilder(ledger: ledger)
        switch encoding {
        case .png:
            do throws(PNGError) {
                var decoder = try PNGDecoder(source: MemoryByteSource(payload), ledger: ledger)
                try decoder.decode(into: &builder)
            } catch {
                throw PareError(error)
            }
        case .jpeg:
            do throws(JPEGError) {
                var decoder = try JPEGDecoder(source: MemoryByteSource(payload), ledger: ledger)
                try decoder.decode(scale: .full, into: &builder)
            } catch {
                throw PareError(error)
            }
        }
        guard let image = builder.image, image.width == width, image.height == height else {
            throw .unsupported("disk cache entry decodes to another size")
        }
        return image
    }
}

extension ThumbnailKey {
    /// The disk cache's key for this thumbnail stored by `policy` (an output format and its
    /// settings, in words): one thumbnail stored for different uses (the pipeline's, the
    /// command line's output formats) is kept apart, so that each reader finds the bytes it
    /// wants.
    @_spi(CommandLine) public func encoded(as policy: String) -> ThumbnailKey {
        ThumbnailKey(description + "|encoded=" + policy)
    }
}
