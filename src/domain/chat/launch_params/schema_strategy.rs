//! Values valid under a tool's JSON Schema, generated from the schema alone, so that the round-trip
//! tests ask "is every call the model may make accepted?" without reusing the code under test.
//!
//! Only the keywords the tools use are understood; any other keyword fails the test instead of
//! being ignored, so a constraint added to a tool cannot go unexercised. String patterns are read
//! as JSON Schema (ECMAScript) reads them; the one pattern in use is spelt out here.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

const KNOWN_KEYWORDS: [&str; 16] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "description",
    "default",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
];

/// ECMAScript's `\s` (ECMA-262, WhiteSpace and LineTerminator): TAB, LF, VT, FF, CR, SPACE, NBSP,
/// the other space separators (Zs), LINE and PARAGRAPH SEPARATOR, and the byte-order mark.
fn is_ecmascript_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// Whether `text` matches `pattern` (unanchored, as JSON Schema's `pattern` is).
fn matches_pattern(pattern: &str, text: &str) -> bool {
    match pattern {
        // A character that is neither `\s` nor NEXT LINE.
        "[^\\s\\u0085]" => text.chars().any(|c| !is_ecmascript_space(c) && c != '\u{85}'),
        // Only characters outside C0, DEL and C1, one of them not `\s`.
        "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$" => {
            let control = |c: char| matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}');
            !text.chars().any(control) && text.chars().any(|c| !is_ecmascript_space(c))
        }
        other => panic!("the generator does not know the pattern {other:?}"),
    }
}

/// Characters strings are built from: ordinary text, and every kind of space the rules tell apart.
const POOL: [char; 24] = [
    'a', 'Z', 'q', '7', '&', '.', ',', '\'', '-', '(', 'é', '株', '🙂', 'ß', ' ', ' ', '\t', '\n', '\u{85}', '\u{a0}',
    '\u{feff}', '\u{2003}', '\u{3000}', '\u{200b}',
];

fn strings(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema.get("maxLength").and_then(Value::as_u64).map_or(64, |max| max as usize);
    let pattern = schema.get("pattern").and_then(Value::as_str).map(str::to_owned);
    let short = proptest::collection::vec(proptest::sample::select(POOL.to_vec()), min..=max.min(24));
    // Strings at the length limit, with spaces around the content.
    let at_limit = (proptest::sample::select(POOL.to_vec()), 0..3_usize).prop_map(move |(c, spaces)| {
        let mut chars = vec![' '; spaces.min(max)];
        chars.resize(max, c);
        chars
    });
    prop_oneof![4 => short, 1 => at_limit]
        .prop_map(|chars| chars.into_iter().collect::<String>())
        .prop_filter("outside the schema", move |text| {
            let length = text.chars().count();
            length >= min && length <= max && pattern.as_deref().is_none_or(|pattern| matches_pattern(pattern, text))
        })
        .prop_map(Value::String)
        .boxed()
}

fn numbers(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let exclusive_min = bound("exclusiveMinimum");
    let low = bound("minimum").or(exclusive_min).unwrap_or(-1e15);
    let high = bound("maximum").unwrap_or(1e15);
    let valid = move |x: &f64| exclusive_min.is_none_or(|min| *x > min) && *x >= low && *x <= high;
    prop_oneof![
        (low..=high).prop_map(|x: f64| x),
        (low..=high).prop_map(|x: f64| x.round()),
        Just(high),
        Just(low + f64::EPSILON),
        Just(low.max(0.0) + 5e-324),
    ]
    .prop_filter("outside the schema", valid)
    .prop_map(|x| if x.fract() == 0.0 && x.abs() < 9e15 { json!(x as i64) } else { json!(x) })
    .boxed()
}

fn integers(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let low = schema.get("minimum").and_then(Value::as_i64).unwrap_or(-1_000_000);
    let high = schema.get("maximum").and_then(Value::as_i64).unwrap_or(1_000_000);
    // JSON Schema counts 5.0 as the integer 5.
    (low..=high, any::<bool>()).prop_map(|(n, as_float)| if as_float { json!(n as f64) } else { json!(n) }).boxed()
}

fn objects(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    assert_eq!(schema.get("additionalProperties"), Some(&json!(false)), "tools refuse other properties");
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, property) in properties {
        let value = valid_values(&property);
        let named = {
            let name = name.clone();
            value.prop_map(move |value| (name.clone(), value))
        };
        fields.push(if required.contains(&name) {
            named.prop_map(Some).boxed()
        } else {
            proptest::option::of(named).boxed()
        });
    }
    fields.prop_map(|fields| Value::Object(fields.into_iter().flatten().collect())).boxed()
}

/// Every value valid under `schema`, as far as the keywords in use constrain it.
pub fn valid_values(schema: &Value) -> BoxedStrategy<Value> {
    let schema = schema.as_object().expect("a schema object");
    if let Some(unknown) = schema.keys().find(|key| !KNOWN_KEYWORDS.contains(&key.as_str())) {
        panic!("the generator does not know the keyword {unknown:?}");
    }
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return proptest::sample::select(choices.clone()).boxed();
    }
    if let Some(alternatives) = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array) {
        let strategies: Vec<BoxedStrategy<Value>> = alternatives.iter().map(valid_values).collect();
        return proptest::strategy::Union::new(strategies).boxed();
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(single)) => vec![single.as_str()],
        Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
        _ => panic!("a schema without a type: {schema:?}"),
    };
    let strategies: Vec<BoxedStrategy<Value>> = types
        .into_iter()
        .map(|kind| match kind {
            "null" => Just(Value::Null).boxed(),
            "string" => strings(schema),
            "number" => numbers(schema),
            "integer" => integers(schema),
            "object" => objects(schema),
            other => panic!("the generator does not know the type {other:?}"),
        })
        .collect();
    proptest::strategy::Union::new(strategies).boxed()
}

#[test]
fn the_generator_reads_patterns_as_json_schema_does() {
    assert!(matches_pattern("[^\\s\\u0085]", " a "));
    for blank in ["", " ", "\u{85}", "\u{feff}", "\t\n\u{3000}\u{a0}"] {
        assert!(!matches_pattern("[^\\s\\u0085]", blank), "{blank:?}");
    }
    // A zero-width space is not white space to ECMAScript: it is content.
    assert!(matches_pattern("[^\\s\\u0085]", "\u{200b}"));
}
