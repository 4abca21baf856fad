//! Server-sent events, as providers stream replies: events separated by a
//! blank line, each with `event:` and `data:` fields.

/// One event of a stream: its type (the `event:` field, empty when none)
/// and its data (the `data:` lines joined by newlines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The event's type; empty when it has no `event:` field.
    pub event: String,
    /// The event's `data:` lines, joined by newlines.
    pub data: String,
}

/// The events of `body`, in order, as a browser's `EventSource` would
/// dispatch them: comments (lines starting with `:`) and fields other than
/// `event` and `data` are skipped, an event with no data is dropped, and an
/// event not ended by a blank line (a stream cut mid-event) is not
/// delivered.
pub fn events(body: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut event = String::new();
    let mut data: Option<String> = None;
    let mut lines = body.split('\n').peekable();
    while let Some(line) = lines.next() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let last = lines.peek().is_none();
        if line.is_empty() {
            if last {
                // The text after the final newline: nothing.
                break;
            }
            if let Some(data) = data.take() {
                out.push(Event {
                    event: std::mem::take(&mut event),
                    data,
                });
            }
            event.clear();
            continue;
        }
        if last {
            // A line no newline ended, so no blank line either.
            break;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => event = value.to_string(),
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_string()),
            },
            // A comment (no field name), `id`, `retry` and unknown fields.
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_on_blank_lines_and_their_data_lines_joined() {
        let body = ": keep-alive\nevent: a\ndata: {\"x\":1}\n\ndata: one\ndata: two\r\n\r\ndata: [DONE]\n\n";
        let got = events(body);
        assert_eq!(
            got,
            vec![
                Event {
                    event: "a".into(),
                    data: "{\"x\":1}".into()
                },
                Event {
                    event: String::new(),
                    data: "one\ntwo".into()
                },
                Event {
                    event: String::new(),
                    data: "[DONE]".into()
                },
            ]
        );
    }

    #[test]
    fn an_event_cut_mid_way_is_not_delivered() {
        assert_eq!(events("data: {\"a\":1}\n\ndata: {\"b\":").len(), 1);
        assert_eq!(events("data: {\"a\":1}\n\ndata: {\"b\":2}\n").len(), 1);
        assert_eq!(events("data: {\"a\":1}\n\ndata: {\"b\":2}\n\n").len(), 2);
    }
}
