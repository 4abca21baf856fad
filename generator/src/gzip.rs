//! Run records stored gzipped: `<run>.json.gz` holds the bytes of
//! `<run>.json`. A build publishes them so with `--compress-records` (a run
//! record of about 14 KB takes about 1.7 KB), and the input may hold them so.
//! Either way a record is known by its uncompressed path and digest: those
//! are what `data/SHA256SUMS` lists and the checks read.

use std::io::{Read, Write};
use std::path::Path;

use flate2::{read::GzDecoder, write::GzEncoder, Compression, GzBuilder};

use receipts_verifier::layout;

/// The suffix of a gzipped record.
pub use receipts_verifier::layout::GZ as SUFFIX;

/// The gzip of `bytes`, the same bytes on every machine: no name, no time,
/// a fixed level.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let out = Vec::with_capacity(bytes.len() / 4 + 64);
    let mut encoder: GzEncoder<Vec<u8>> = GzBuilder::new().mtime(0).write(out, Compression::new(6));
    // Writing into a Vec cannot fail.
    encoder.write_all(bytes).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// The bytes gzipped in `gz`, refusing more than `limit` of them (a small
/// file can inflate to a very large one).
pub fn decompress(gz: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    GzDecoder::new(gz)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("not a valid gzip file: {e}"))?;
    if out.len() as u64 > limit {
        return Err(format!("uncompressed, the file has over {limit} bytes"));
    }
    Ok(out)
}

/// Whether file `path`, on disk, is a gzipped run record: `<run>.json.gz`
/// in a `runs` directory. Which published file stands for which record is
/// the verification core's layout ([`receipts_verifier::layout::record_in`]).
pub fn is_gzipped(path: &Path) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(layout::GZ)?.strip_suffix(".json"))
        .is_some_and(|stem| !stem.is_empty());
    named
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|dir| dir == layout::RUNS_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_round_trips_and_is_deterministic() {
        let record = br#"{"format_version": 1, "kind": "run", "turns": []}"#.repeat(50);
        let a = compress(&record);
        assert_eq!(a, compress(&record), "same bytes every time");
        assert!(
            a.len() < record.len() / 5,
            "{} of {}",
            a.len(),
            record.len()
        );
        // The header carries no time and no name: bytes 4..8 are the mtime.
        assert_eq!(&a[4..8], &[0, 0, 0, 0]);
        assert_eq!(a[3] & 0x08, 0, "no file name");
        assert_eq!(decompress(&a, 1 << 20).unwrap(), record);
    }

    #[test]
    fn bad_or_oversized_gzip_is_an_error() {
        assert!(decompress(b"not gzip at all", 1 << 20)
            .unwrap_err()
            .starts_with("not a valid gzip file"));
        let big = compress(&vec![b' '; 10_000]);
        assert_eq!(
            decompress(&big, 1000).unwrap_err(),
            "uncompressed, the file has over 1000 bytes"
        );
        let mut cut = compress(b"{\"a\": 1}");
        cut.truncate(cut.len() - 4);
        assert!(decompress(&cut, 1 << 20).is_err());
    }

    #[test]
    fn a_record_is_known_by_its_uncompressed_path() {
        let record_path = |p| receipts_verifier::layout::record_in(p).0;
        assert_eq!(record_path("E01/runs/r.json.gz"), "E01/runs/r.json");
        assert_eq!(record_path("E01/runs/r.json"), "E01/runs/r.json");
        assert!(is_gzipped(Path::new("/site/data/E01/runs/r.json.gz")));
        assert!(!is_gzipped(Path::new("a/r.json")));
        // Only a run record may be gzipped: nothing else stands for another file.
        for other in [
            "objects/abc.gz",
            "objects/abc.json.gz",
            "E01/summary.json.gz",
            "runs/.json.gz",
            "docs/x.md.gz",
        ] {
            assert_eq!(record_path(other), other);
            assert!(!is_gzipped(Path::new(other)), "{other}");
        }
    }
}
