//! Text the database cannot store, refused where it enters the service, naming the field.
//!
//! PostgreSQL's `text` and `jsonb` hold every Unicode character but one: U+0000 (NUL). A value with
//! it fails the write ("invalid byte sequence for encoding UTF8: 0x00", "unsupported Unicode escape
//! sequence"), which is not the client's outage to report; the memory store would have taken it.
//! So every request body, form field and query parameter that is stored or searched is refused
//! with the same 400 on either store, before any work. (Surrogates, the other characters a UTF-8
//! database refuses, never reach here: JSON parsing and Rust strings refuse them already.)

use serde_json::Value;

/// The one character refused.
const NUL: char = '\0';

/// Why the field is refused.
pub const REASON: &str = "must not contain the character U+0000 (NUL), which cannot be stored";

/// A field holding text the database cannot store; answered as a 400 naming it (`From` in
/// [`super::error`], which this module must not import: errors use it to check bodies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unstorable {
    pub field: String,
}

/// Refuses `text` when it holds a character the database cannot store.
///
/// # Errors
/// 400 naming `field`.
pub fn refuse_unstorable(field: &str, text: &str) -> Result<(), Unstorable> {
    if text.contains(NUL) { Err(Unstorable { field: field.to_owned() }) } else { Ok(()) }
}

/// Refuses a JSON body with U+0000 in any string or key, naming the first such field by its path
/// (`title`, `messages[2].content`), in the notation of the body's other 400s.
///
/// # Errors
/// 400 naming the field.
pub fn refuse_unstorable_json(bytes: &[u8]) -> Result<(), Unstorable> {
    // In JSON, U+0000 can only be written as the escape `\u0000` (a raw control character is not
    // valid JSON), so bodies without that text, almost all of them, are not parsed twice.
    if !bytes.windows(6).any(|window| window == b"\\u0000") {
        return Ok(());
    }
    // A body that is not JSON gets its own 400 from the parser that follows.
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Ok(());
    };
    match path_to_nul(&value, ".") {
        Some(field) => Err(Unstorable { field }),
        None => Ok(()),
    }
}

/// The path of the first string or key under `value` (itself at `path`) holding U+0000.
fn path_to_nul(value: &Value, path: &str) -> Option<String> {
    let child = |name: &str| if path == "." { name.to_owned() } else { format!("{path}.{name}") };
    match value {
        Value::String(text) => text.contains(NUL).then(|| path.to_owned()),
        Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
            let at = if path == "." { format!("[{index}]") } else { format!("{path}[{index}]") };
            path_to_nul(item, &at)
        }),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            if key.contains(NUL) { Some(child(&key.replace(NUL, "\\u0000"))) } else { path_to_nul(item, &child(key)) }
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_field(body: &str) -> Option<String> {
        refuse_unstorable_json(body.as_bytes()).err().map(|error| error.field)
    }

    #[test]
    fn a_nul_anywhere_in_a_json_body_is_refused_naming_its_field() {
        assert_eq!(refused_field(r#"{"title":"Credit\u0000Agreement","text":"x"}"#).as_deref(), Some("title"));
        assert_eq!(
            refused_field(r#"{"session_id":"s","messages":[{"content":"ok"},{"content":"a\u0000"}]}"#).as_deref(),
            Some("messages[1].content")
        );
        assert_eq!(refused_field(r#"{"params":{"a\u0000b":1}}"#).as_deref(), Some("params.a\\u0000b"));
        assert_eq!(refused_field(r#"["\u0000"]"#).as_deref(), Some("[0]"));
    }

    #[test]
    fn bodies_without_a_nul_pass_even_when_they_spell_the_escape() {
        assert_eq!(refused_field(r#"{"title":"Credit Agreement","text":"\u0001 \u00e9"}"#), None);
        assert_eq!(refused_field(r#"{"text":"a literal \\u0000 in the text"}"#), None);
        assert_eq!(refused_field(r#"{"text": "\u0000"#), None, "not JSON: left to the parser's own 400");
        assert!(refuse_unstorable("title", "Credit Agreement").is_ok());
        assert!(refuse_unstorable("title", "Credit\0Agreement").is_err());
    }
}
