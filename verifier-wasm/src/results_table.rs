//! A published results table (`results.csv`) read once: each row typed as a
//! [`ResultRow`], and each row's cells as written, so a number is judged by
//! the text the table shows (`0.10` claims two decimals, `0.1` one) as well
//! as by its value. The build's loader and the verifier of a published site
//! both read the table here.

use thiserror::Error;

use crate::model::ResultRow;

/// A results table: its rows, typed and as written.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsTable {
    /// Each row after the header, in the table's order.
    pub rows: Vec<ResultRow>,
    /// The header's column names, in order.
    header: Vec<String>,
    /// Each row's cells as written, in the header's order; `written[i]` is
    /// `rows[i]`.
    written: Vec<Vec<String>>,
}

/// Why a results table could not be read: the place (a line, or the
/// header) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{place}: {message}")]
pub struct TableError {
    /// `line N` (counted from 1, the header being line 1), or `header`.
    pub place: String,
    /// What is wrong, in the words of the table rather than of its types.
    pub message: String,
}

impl ResultsTable {
    /// Reads `bytes` as a results table with a header row. Every row must
    /// have the header's number of fields and hold a [`ResultRow`].
    pub fn parse(bytes: &[u8]) -> Result<ResultsTable, TableError> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(bytes);
        let header = reader.headers().map_err(table_error)?.clone();
        let mut table = ResultsTable {
            rows: Vec::new(),
            header: header.iter().map(str::to_string).collect(),
            written: Vec::new(),
        };
        for record in reader.records() {
            let record = record.map_err(table_error)?;
            table
                .rows
                .push(record.deserialize(Some(&header)).map_err(table_error)?);
            table
                .written
                .push(record.iter().map(str::to_string).collect());
        }
        Ok(table)
    }

    /// The cell of row `row` (counted from 0 after the header) in `column`,
    /// as written; `None` when the table has no such row or column.
    pub fn written(&self, row: usize, column: &str) -> Option<&str> {
        let at = self.header.iter().position(|name| name == column)?;
        self.written.get(row)?.get(at).map(String::as_str)
    }
}

fn table_error(e: csv::Error) -> TableError {
    let place = match e.position() {
        Some(p) => format!("line {}", p.line()),
        None => "header".to_string(),
    };
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("the row has {len} fields; the header has {expected_len}"),
        csv::ErrorKind::Deserialize { err, .. } => match err.field() {
            Some(i) => format!("field {}: {}", i + 1, err.kind()),
            None => err.kind().to_string(),
        },
        _ => e.to_string(),
    };
    TableError { place, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "run,task,profile,seed,policy,tiers,passed,cost_usd_low,cost_usd_high,time_s,truncations,timeouts,replaces";

    #[test]
    fn each_row_is_read_typed_and_as_written() {
        let text = format!("{HEADER}\nr1,t1,p,7,ladder,small>large,true,0.10,0.120,1.5,0,1,\n");
        let table = ResultsTable::parse(text.as_bytes()).expect("parses");
        assert_eq!(table.rows.len(), 1);
        assert_eq!(table.rows[0].run, "r1");
        assert_eq!(table.rows[0].seed, 7);
        assert!(table.rows[0].passed);
        assert_eq!(table.rows[0].cost_usd_low, 0.1);
        assert_eq!(table.written(0, "cost_usd_low"), Some("0.10"));
        assert_eq!(table.written(0, "cost_usd_high"), Some("0.120"));
        assert_eq!(table.written(0, "replaces"), Some(""));
        assert_eq!(table.written(0, "no such column"), None);
        assert_eq!(table.written(1, "run"), None);
    }

    #[test]
    fn a_bad_row_is_named_by_its_line() {
        let good = "r1,t1,p,7,ladder,small,true,0.1,0.1,1.5,0,0,";
        let ragged = format!("{HEADER}\n{good}\n{good},extra\n");
        let e = ResultsTable::parse(ragged.as_bytes()).unwrap_err();
        assert_eq!(e.place, "line 3");
        assert_eq!(e.message, "the row has 14 fields; the header has 13");

        let typed = format!("{HEADER}\n{}\n", good.replace(",7,", ",seven,"));
        let e = ResultsTable::parse(typed.as_bytes()).unwrap_err();
        assert_eq!(e.place, "line 2");
        assert!(e.message.starts_with("field 4: "), "{e}");
    }

    #[test]
    fn a_bad_cell_is_named_in_the_words_of_the_table() {
        // Every way a row can fail to hold a `ResultRow`: each kind of
        // column given a cell it cannot read, a column too many, one too
        // few. None names a Rust type (`messages::plain` is not needed).
        let good = "r1,t1,p,7,ladder,small,true,0.1,0.1,1.5,0,0,";
        let cells: Vec<&str> = good.split(',').collect();
        let mut messages = Vec::new();
        for (column, bad) in [(3, "seven"), (6, "yes"), (7, "cheap"), (10, "-1")] {
            let mut row = cells.clone();
            row[column] = bad;
            let text = format!("{HEADER}\n{}\n", row.join(","));
            let e = ResultsTable::parse(text.as_bytes()).unwrap_err();
            assert!(
                e.message.starts_with(&format!("field {}: ", column + 1)),
                "{e}"
            );
            messages.push(e.message);
        }
        let extra = format!("{HEADER},note\n{good},x\n");
        messages.push(ResultsTable::parse(extra.as_bytes()).unwrap_err().message);
        let short = HEADER.trim_end_matches(",replaces");
        let missing = format!("{short}\n{}\n", good.trim_end_matches(','));
        messages.push(ResultsTable::parse(missing.as_bytes()).unwrap_err().message);
        for message in &messages {
            for rust in ["u64", "f64", "bool", "struct", "String"] {
                assert!(!message.contains(rust), "{message}");
            }
        }
        assert!(
            messages[4].contains("unknown field `note`"),
            "{}",
            messages[4]
        );
        assert!(
            messages[5].contains("missing field `replaces`"),
            "{}",
            messages[5]
        );
    }
}
