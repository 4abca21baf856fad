"""Zips a built site, its files under `site/`, honestly or forged.

    python3 zip_site.py SRC OUT [KIND]

KIND is one of:
  deflated  (the default) Python's zipfile, each file deflated;
  stream    the same written as a stream: each entry's sizes and CRC-32 in a
            data descriptor after its data, as zips made on the fly are;
  smuggled  a second local entry for experiments/E01.html, with a number
            edited, after the last entry: the central directory does not list
            it, but a tool that unpacks local headers front to back writes it
            over the genuine page;
  renamed   the local header of experiments/E01.html names another file;
  twice     experiments/E01.html listed twice, the second with a number edited;
  crc       stored, not deflated, with one digit of experiments/E01.html's
            stored bytes changed and its CRC-32 left as it was.
"""

import io
import os
import struct
import sys
import warnings
import zipfile
import zlib

PAGE = "site/experiments/E01.html"


class Stream(io.RawIOBase):
    """A file that cannot seek, so zipfile writes data descriptors."""

    def __init__(self, out):
        self.out = out

    def writable(self):
        return True

    def write(self, b):
        return self.out.write(b)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    kind = sys.argv[3] if len(sys.argv) > 3 else "deflated"
    names = []
    for d, _, fs in os.walk(src):
        for f in fs:
            path = os.path.join(d, f)
            names.append((os.path.join("site", os.path.relpath(path, src)), path))
    names.sort()
    genuine = open(os.path.join(src, "experiments/E01.html"), "rb").read()
    forged = genuine.replace(b"54 runs on record", b"55 runs on record")
    assert forged != genuine, "the page to forge has no number to edit"

    buf = io.BytesIO()
    method = zipfile.ZIP_STORED if kind == "crc" else zipfile.ZIP_DEFLATED
    target = Stream(buf) if kind == "stream" else buf
    with zipfile.ZipFile(target, "w", method) as z:
        for name, path in names:
            z.write(path, name)
        if kind == "twice":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                z.writestr(PAGE, forged)
    data = bytearray(buf.getvalue())

    if kind in ("renamed", "crc"):
        at = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(PAGE).header_offset
        name_length, extra_length = struct.unpack_from("<HH", data, at + 26)
        if kind == "renamed":
            # site/experiments/E01.html becomes site/experiments/E00.html.
            data[at + 30 + name_length - len("1.html")] = ord("0")
        else:
            start = at + 30 + name_length + extra_length
            found = data.index(b"54 runs on record", start)
            data[found + 1] = ord("5")
    elif kind == "smuggled":
        end = data.rindex(b"PK\x05\x06")
        directory = struct.unpack_from("<I", data, end + 16)[0]
        name = PAGE.encode()
        local = struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0,
            zlib.crc32(forged), len(forged), len(forged), len(name), 0,
        ) + name + forged
        data[directory:directory] = local
        struct.pack_into("<I", data, end + len(local) + 16, directory + len(local))
    elif kind not in ("deflated", "stream", "twice"):
        sys.exit(f"unknown kind {kind}")

    with open(out, "wb") as f:
        f.write(data)


main()
