//! Checks of a transformed CSV: rows preserved and amounts converted to cents.

use super::{
    artifact_text, from_evidence, input_text, parse_euro_cents, unreadable, CheckContext, Evidence,
    Verdict,
};

/// A CSV file read into its header and rows.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn parse(name: &str, text: &str) -> Result<Table, Verdict> {
        let mut rows = crate::csv_rows::read_rows(text.as_bytes())
            .map_err(|e| unreadable(format!("{name} is not valid CSV: {e}")))?
            .into_iter();
        let header = rows.next().unwrap_or_default();
        Ok(Table {
            header,
            rows: rows.collect(),
        })
    }

    fn column(&self, name: &str, file: &str) -> Result<usize, Verdict> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| unreadable(format!("{file} has no column `{name}`")))
    }
}

fn load(ctx: &CheckContext<'_>, source: &str) -> Result<(Table, Table), Verdict> {
    let source_table = Table::parse(&format!("input `{source}`"), input_text(ctx, source)?)?;
    let artifact_table = Table::parse("the artifact", artifact_text(ctx)?)?;
    Ok((source_table, artifact_table))
}

pub(super) fn rows_preserved(ctx: &CheckContext<'_>, source: &str, id_column: &str) -> Verdict {
    let (src, out) = match load(ctx, source) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let (src_col, out_col) = match (
        src.column(id_column, source),
        out.column(id_column, "the artifact"),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(v), _) | (_, Err(v)) => return v,
    };
    let ids =
        |t: &Table, col: usize| -> Vec<String> { t.rows.iter().map(|r| r[col].clone()).collect() };
    let (expected, got) = (ids(&src, src_col), ids(&out, out_col));
    let mut evidence: Vec<Evidence> = (0..expected.len().max(got.len()))
        .map(|i| {
            let e = expected.get(i).map_or("(no row)", String::as_str);
            let g = got.get(i).map_or("(no row)", String::as_str);
            Evidence::new(format!("row {}", i + 1), e == g, e, g)
        })
        .collect();
    // When a row was dropped every later row shifts; name the missing ids first.
    let missing: Vec<&String> = expected.iter().filter(|id| !got.contains(id)).collect();
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
        evidence.insert(
            0,
            Evidence::new(
                "missing ids",
                false,
                names.join(", "),
                "absent from the artifact",
            ),
        );
    }
    from_evidence("rows", evidence)
}

/// The columns the euro-cents check reads.
pub(super) struct EuroColumns<'a> {
    pub source: &'a str,
    pub id: &'a str,
    pub amount: &'a str,
    pub cents: &'a str,
    pub status: &'a str,
}

pub(super) fn euro_cents(ctx: &CheckContext<'_>, cols: &EuroColumns<'_>) -> Verdict {
    let (src, out) = match load(ctx, cols.source) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let columns = (
        src.column(cols.id, cols.source),
        src.column(cols.amount, cols.source),
        out.column(cols.id, "the artifact"),
        out.column(cols.cents, "the artifact"),
        out.column(cols.status, "the artifact"),
    );
    let (s_id, s_amount, o_id, o_cents, o_status) = match columns {
        (Ok(a), Ok(b), Ok(c), Ok(d), Ok(e)) => (a, b, c, d, e),
        (Err(v), ..) | (_, Err(v), ..) | (_, _, Err(v), ..) | (.., Err(v), _) | (.., Err(v)) => {
            return v
        }
    };
    let evidence = src
        .rows
        .iter()
        .map(|row| {
            let (id, amount) = (&row[s_id], &row[s_amount]);
            let item = format!("id {id}, amount \"{amount}\"");
            // The cents and status cells the conversion calls for.
            let (want_cents, want_status) = match parse_euro_cents(amount) {
                Some(c) => (c.to_string(), "ok"),
                None => (String::new(), "invalid"),
            };
            let show = |cents: &str, status: &str| {
                if cents.is_empty() {
                    status.to_string()
                } else {
                    format!("{cents} {status}")
                }
            };
            let expected = show(&want_cents, want_status);
            let Some(r) = out.rows.iter().find(|r| r[o_id] == *id) else {
                return Evidence::new(item, false, expected, "(row missing)");
            };
            let (cents, status) = (&r[o_cents], &r[o_status]);
            let agrees = *cents == want_cents && status == want_status;
            Evidence::new(item, agrees, expected, show(cents, status))
        })
        .collect();
    from_evidence("amounts", evidence)
}
