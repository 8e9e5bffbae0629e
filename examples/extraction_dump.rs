//! What the engine states for each document of a folder, one JSON line per file (the agreement
//! without its provenance, the status and the warnings' count), for comparing two builds over
//! documents nobody labelled:
//!
//!     cargo run --example extraction_dump -- DIR > after.jsonl
//!
//! Files ending in .htm/.html are read as HTML, .pdf as PDF, .docx as Word, anything else as plain
//! text.

use std::path::PathBuf;
use std::process::ExitCode;

use creditflow::adapters::reader::{UNBOUNDED_READ, read_in_process};
use creditflow::domain::extraction::extract_credit_agreement;
use creditflow::domain::intake::MediaType;
use serde_json::json;

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: extraction_dump DIR");
        return ExitCode::from(2);
    };
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect(),
        Err(error) => {
            eprintln!("cannot read {}: {error}", dir.display());
            return ExitCode::from(2);
        }
    };
    paths.sort();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let media_type = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("htm" | "html") => MediaType::Html,
            Some("pdf") => MediaType::Pdf,
            Some("docx") => MediaType::Docx,
            _ => MediaType::Text,
        };
        let line = match std::fs::read(&path).map_err(|e| e.to_string()).and_then(|bytes| {
            read_in_process(media_type, &bytes, usize::MAX, UNBOUNDED_READ).map_err(|e| e.to_string())
        }) {
            Ok(read) => {
                let extraction = extract_credit_agreement(&read.text);
                let mut agreement = serde_json::to_value(&extraction.agreement).unwrap_or_default();
                if let Some(object) = agreement.as_object_mut() {
                    object.remove("provenance");
                }
                let mut line =
                    json!({ "file": name, "status": format!("{:?}", extraction.status), "agreement": agreement });
                if std::env::var_os("EXTRACTION_DUMP_WARNINGS").is_some() {
                    line["warnings"] = json!(extraction.warnings);
                }
                line
            }
            Err(error) => json!({ "file": name, "unreadable": error }),
        };
        println!("{line}");
    }
    ExitCode::SUCCESS
}
