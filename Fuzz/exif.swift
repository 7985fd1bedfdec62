// libFuzzer target: metadata parsing (PareEXIF). Every input is read three ways: as a JPEG
// (segment walk, EXIF APP1, MPF APP2, JFXX), as a TIFF block in memory (an APP1 payload or
// a PNG eXIf chunk), as a plain TIFF file through a byte source, and as a RAW file for its
// JPEG previews. Every value accessor
// is then run on every entry, and every embedded image is read back from the input. Any
// typed error is an accepted outcome; a trap or a sanitizer report is a finding.
import PareCore
import PareEXIF

func touch(_ metadata: EXIFMetadata, source: MemoryByteSource) {
    for ifd in metadata.ifds {
        for entry in ifd.entries {
            let n = min(entry.valueCount, 4)
            for i in 0 ..< n {
                _ = entry.integer(at: i)
                _ = entry.unsignedInteger(at: i)
                _ = entry.rational(at: i)
                _ = entry.double(at: i)
            }
            _ = entry.integer(at: entry.valueCount)
            _ = entry.integer(at: -1)
            _ = entry.string
            _ = entry.fieldType
        }
    }
    for name in ["IFD0", "ExifIFD", "GPS", "InteropIFD", "IFD1"] {
        _ = metadata.ifd(name)
    }
    if let thumbnail = metadata.thumbnail {
        _ = try? thumbnail.bytes(from: source)
    }
    for warning in metadata.warnings {
        _ = warning.description
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEXIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let source = MemoryByteSource(bytes)

    do {
        let jpeg = try EXIFReader.readJPEG(source)
        if let exif = jpeg.exif { touch(exif, source: source) }
        for entry in jpeg.mpf {
            _ = entry.kind.name
            _ = entry.flags
            _ = try? entry.image.bytes(from: source)
        }
        if let thumbnail = jpeg.jfxxThumbnail {
            _ = try? thumbnail.bytes(from: source)
        }
        for warning in jpeg.warnings {
            _ = warning.description
        }
    } catch {
        _ = error.description
    }

    do {
        touch(try EXIFReader.readTIFF(bytes, baseOffset: 0), source: source)
    } catch {
        _ = error.description
    }

    do {
        touch(try EXIFReader.readTIFFFile(source), source: source)
    } catch {
        _ = error.description
    }
    // As a RAW file: every preview listed must lie inside the input and read back.
    do {
        let raw = try EXIFReader.readRawPreviews(source)
        for preview in raw.previews {
            precondition(preview.offset >= 0 && preview.length > 0 && preview.offset + preview.length <= size,
                         "preview outside the input")
            _ = try preview.bytes(from: source)
        }
        _ = raw.largest
        for warning in raw.warnings { _ = warning.description }
    } catch {
        _ = error.description
    }
    return 0
}
