//! CSV text read into rows of cells.
//!
//! Every run's checks read small CSV files several times, and building a CSV
//! parser (its state machine) costs more than reading such a file. So each
//! thread keeps one parser and resets it between files. The dialect is the
//! `csv` crate's default: commas, double quotes, blank lines skipped, a UTF-8
//! byte order mark ignored, and every row as long as the first.

use std::cell::RefCell;

use csv_core::{ReadRecordResult, Reader};

/// Why a CSV file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// A row has a different number of fields than the first row.
    #[error("row {row} (line {line}) has {fields} fields, but the first row has {first}")]
    Ragged {
        /// The row's index, from 0, blank lines not counted.
        row: usize,
        /// The line the row starts on, from 1.
        line: u64,
        /// How many fields the row has.
        fields: usize,
        /// How many fields the first row has.
        first: usize,
    },
    /// A row is not UTF-8 text.
    #[error("row {row} (line {line}) is not UTF-8")]
    NotUtf8 {
        /// The row's index, from 0, blank lines not counted.
        row: usize,
        /// The line the row starts on, from 1.
        line: u64,
    },
}

thread_local! {
    static PARSER: RefCell<Reader> = RefCell::new(Reader::new());
}

/// Every row of `text`, the first (a header, where the file has one) included.
/// Rows are numbered from 0 in errors, lines from 1.
pub fn read_rows(text: &[u8]) -> Result<Vec<Vec<String>>, CsvError> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.reset();
        read_with(&mut parser, text)
    })
}

fn read_with(parser: &mut Reader, mut input: &[u8]) -> Result<Vec<Vec<String>>, CsvError> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    // A field never holds more bytes than the input, so the buffer is grown
    // only for the parser's own bookkeeping.
    let mut out = vec![0u8; input.len() + 1];
    let mut ends = vec![0usize; 16];
    let (mut out_len, mut ends_len) = (0, 0);
    loop {
        // The line the record being read started on.
        let line = parser.line();
        let (result, read, wrote, ended) =
            parser.read_record(input, &mut out[out_len..], &mut ends[ends_len..]);
        input = &input[read..];
        out_len += wrote;
        ends_len += ended;
        match result {
            // The whole text was given, so the next call (with no input) ends it.
            ReadRecordResult::InputEmpty => {}
            ReadRecordResult::OutputFull => out.resize(out.len() * 2, 0),
            ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
            ReadRecordResult::Record => {
                let row = rows.len();
                let fields = &ends[..ends_len];
                if let Some(first) = rows.first().map(Vec::len) {
                    if fields.len() != first {
                        return Err(CsvError::Ragged {
                            row,
                            line,
                            fields: fields.len(),
                            first,
                        });
                    }
                }
                let bytes = &out[..out_len];
                let text =
                    std::str::from_utf8(bytes).map_err(|_| CsvError::NotUtf8 { row, line })?;
                let mut start = 0;
                let cells = fields
                    .iter()
                    .map(|&end| {
                        let cell = text[start..end].to_string();
                        start = end;
                        cell
                    })
                    .collect();
                rows.push(cells);
                out_len = 0;
                ends_len = 0;
            }
            ReadRecordResult::End => return Ok(rows),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<String>> {
        read_rows(text.as_bytes()).unwrap()
    }

    #[test]
    fn reads_what_the_csv_crate_reads() {
        let cases = [
            "id,name\nA1,plain\n",
            "id,name\r\nA1,\"quoted, with comma\"\r\nA2,\"say \"\"hi\"\"\"\n",
            "id,name\n\nA1,after a blank line\n\n",
            "id,name\nA1,no final newline",
            "\u{feff}id,name\nA1,bom\n",
            "id,note\nA1,\"two\nlines\"\nA2,Café Nord\n",
            "",
            "only\n",
            "a,b\n,\n",
        ];
        for text in cases {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(text.as_bytes());
            let expected: Vec<Vec<String>> = reader
                .records()
                .map(|r| r.unwrap().iter().map(str::to_string).collect())
                .collect();
            assert_eq!(rows(text), expected, "{text:?}");
        }
    }

    #[test]
    fn a_ragged_row_is_named_with_its_line() {
        let err = read_rows(b"id,cents,status\nA1,1,ok,surplus\nA2\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "row 1 (line 2) has 4 fields, but the first row has 3"
        );
        let err = read_rows(b"id,note\nA1,\"two\nlines\"\nA2\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "row 2 (line 4) has 1 fields, but the first row has 2"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_error_not_a_panic() {
        let err = read_rows(b"id\n\xff\xfe\n").unwrap_err();
        assert_eq!(err, CsvError::NotUtf8 { row: 1, line: 2 });
    }

    #[test]
    fn the_parser_starts_afresh_after_an_error() {
        assert!(read_rows(b"a\n\"open quote, never closed").is_ok());
        assert!(read_rows(b"a,b\nx\n").is_err());
        assert_eq!(rows("a,b\n1,2\n"), vec![vec!["a", "b"], vec!["1", "2"]]);
    }

    #[test]
    fn a_long_row_grows_the_buffers() {
        let header: Vec<String> = (0..100).map(|i| format!("c{i}")).collect();
        let text = format!("{}\n{}\n", header.join(","), header.join(","));
        let got = rows(&text);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1], header);
    }
}
