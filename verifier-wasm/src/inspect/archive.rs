//! The members of a zip archive, as Inspect AI writes its `.eval` logs:
//! stored, deflated or Zstandard-compressed, read from bytes with no file
//! system. No ZIP64, encryption or multi-disk archives (Inspect writes
//! none); each is refused with the reason. Sizes are bounded so that a
//! small archive cannot expand without limit.

use std::io::Read;

use super::log::LogError;

/// The largest member, and the largest archive, once expanded.
const MAX_MEMBER: usize = 256 << 20;
const MAX_TOTAL: usize = 1 << 30;

fn error(at: impl Into<String>, message: impl Into<String>) -> LogError {
    LogError {
        at: at.into(),
        message: message.into(),
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    b.get(at..at + 2)
        .map(|s| usize::from(u16::from_le_bytes([s[0], s[1]])))
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
}

/// Every member of the archive, in the central directory's order, with
/// its expanded bytes.
pub fn members(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    const EOCD: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    let archive = "the archive";
    let floor = bytes.len().saturating_sub(22 + 0xffff);
    let end = (floor..=bytes.len().saturating_sub(22))
        .rev()
        .find(|&i| bytes[i..].starts_with(&EOCD))
        .ok_or_else(|| {
            error(
                archive,
                "not a zip archive, or truncated: it has no end-of-directory record",
            )
        })?;
    let count = u16_at(bytes, end + 10).expect("in bounds");
    let dir_size = u32_at(bytes, end + 12).expect("in bounds");
    let dir_at = u32_at(bytes, end + 16).expect("in bounds");
    if count == 0xffff || dir_at == 0xffff_ffff {
        return Err(error(
            archive,
            "a ZIP64 archive, which this build does not read",
        ));
    }
    if dir_at + dir_size > end {
        return Err(error(archive, "truncated: its directory lies past its end"));
    }
    let mut out = Vec::with_capacity(count);
    let mut total = 0usize;
    let mut at = dir_at;
    for i in 0..count {
        let entry = format!("directory entry {i}");
        if bytes.get(at..at + 4) != Some(&[0x50, 0x4b, 0x01, 0x02]) {
            return Err(error(entry, "truncated or damaged directory"));
        }
        let field = |off: usize, two: bool| {
            if two {
                u16_at(bytes, at + off)
            } else {
                u32_at(bytes, at + off)
            }
            .ok_or_else(|| error(format!("directory entry {i}"), "truncated directory"))
        };
        let flags = field(8, true)?;
        let method = field(10, true)?;
        let packed = field(20, false)?;
        let size = field(24, false)?;
        let (name_len, extra_len, comment_len) =
            (field(28, true)?, field(30, true)?, field(32, true)?);
        let local = field(42, false)?;
        let name_bytes = bytes
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| error(&entry, "truncated directory"))?;
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        at += 46 + name_len + extra_len + comment_len;
        if flags & 1 != 0 {
            return Err(error(
                name,
                "an encrypted member, which this build does not read",
            ));
        }
        if size > MAX_MEMBER || total + size > MAX_TOTAL {
            return Err(error(name, "expands past the size this build reads"));
        }
        let data_at = match (u16_at(bytes, local + 26), u16_at(bytes, local + 28)) {
            (Some(n), Some(e))
                if bytes.get(local..local + 4) == Some(&[0x50, 0x4b, 0x03, 0x04]) =>
            {
                local + 30 + n + e
            }
            _ => return Err(error(name, "truncated: its local header is missing")),
        };
        let data = bytes
            .get(data_at..data_at + packed)
            .ok_or_else(|| error(&name, "truncated: its data ends early"))?;
        let expanded = match method {
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, MAX_MEMBER)
                .map_err(|e| error(&name, format!("damaged deflate data: {e:?}")))?,
            93 => zstd(data).map_err(|e| error(&name, format!("damaged Zstandard data: {e}")))?,
            other => {
                return Err(error(
                    name,
                    format!("compression method {other}, which this build does not read (it reads stored, deflate and Zstandard)"),
                ))
            }
        };
        if expanded.len() != size {
            return Err(error(
                name,
                format!(
                    "expands to {} bytes, not the {size} its directory records",
                    expanded.len()
                ),
            ));
        }
        total += size;
        out.push((name, expanded));
    }
    Ok(out)
}

/// Every Zstandard frame of `data`, one after another.
fn zstd(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let mut frame =
            ruzstd::decoding::StreamingDecoder::new(&mut data).map_err(|e| e.to_string())?;
        frame
            .by_ref()
            .take((MAX_MEMBER - out.len()) as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| e.to_string())?;
        if out.len() > MAX_MEMBER {
            return Err("expands past the size this build reads".into());
        }
    }
    Ok(out)
}
