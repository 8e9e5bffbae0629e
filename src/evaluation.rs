//! Measuring extraction against documents labelled by reading them (the real-filing corpus in
//! `tests/corpus/edgar`, format in its README): every labelled field of every document is
//! **correct**, **wrong** (a value stated that the document does not say), **withheld** (the
//! engine reported a conflict instead) or **missing**. A field labelled `null` is one the document
//! does not state: stating anything for it is wrong, stating nothing is correct.
//!
//! Used by `cargo run --release --example extraction_accuracy` and by the test that keeps the
//! figures from getting worse. Each document is read from its file exactly as an upload is (same
//! readers), and, where a printed PDF or a Word copy of it exists, from those too.

use std::fmt;
use std::path::{Path, PathBuf};

use rust_decimal::Decimal;
use serde_json::Value;

use crate::adapters::reader::{UNBOUNDED_READ, read_in_process};
use crate::domain::extraction::{
    AmendmentType, CommitmentFee, Extraction, ExtractionStatus, Facility, PartyRole, extract_credit_agreement,
};
use crate::domain::intake::MediaType;

/// The parts of the real-filing corpus, each a folder of the same layout with its own
/// `baseline.json`: the development part, which rules are written against, and the held-out part,
/// drawn by `scripts/corpus-split.py` (a seeded draw) from documents labelled by readers who wrote
/// no rule, which is only ever measured.
pub const CORPUS_PARTS: [(&str, &str); 2] =
    [("development", "tests/corpus/edgar"), ("held-out", "tests/corpus/heldout")];

/// How one labelled field came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Correct,
    Wrong,
    Withheld,
    Missing,
}

/// One scored field: which, what the label says, what was extracted.
#[derive(Clone, Debug)]
pub struct Scored {
    pub field: String,
    pub expected: String,
    pub found: String,
    pub outcome: Outcome,
}

/// A document read from one of its files, scored.
#[derive(Clone, Debug)]
pub struct DocumentScore {
    pub id: String,
    pub media_type: MediaType,
    pub fields: Vec<Scored>,
    /// Why the file could not be read, when it could not (every field then counts as missing).
    pub unreadable: Option<String>,
}

impl DocumentScore {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.fields.iter().filter(|f| f.outcome == outcome).count()
    }
}

/// Totals over documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub correct: usize,
    pub wrong: usize,
    pub withheld: usize,
    pub missing: usize,
}

impl Totals {
    pub fn of<'a>(scores: impl IntoIterator<Item = &'a DocumentScore>) -> Self {
        let mut totals = Totals::default();
        for score in scores {
            totals.correct += score.count(Outcome::Correct);
            totals.wrong += score.count(Outcome::Wrong);
            totals.withheld += score.count(Outcome::Withheld);
            totals.missing += score.count(Outcome::Missing);
        }
        totals
    }

    pub fn labelled(&self) -> usize {
        self.correct + self.wrong + self.withheld + self.missing
    }

    /// Share of labelled fields that are correct, 0–1.
    pub fn accuracy(&self) -> f64 {
        if self.labelled() == 0 { 0.0 } else { self.correct as f64 / self.labelled() as f64 }
    }
}

impl fmt::Display for Totals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} labelled: {} correct ({:.1}%), {} wrong, {} withheld, {} missing",
            self.labelled(),
            self.correct,
            100.0 * self.accuracy(),
            self.wrong,
            self.withheld,
            self.missing
        )
    }
}

/// Scores every labelled document in `dir` (each `<id>.labels.json` with its file, and its PDF
/// and Word twins when there are).
///
/// # Errors
/// A labels file that cannot be read or parsed, or names a file that is not there.
pub fn score_corpus(dir: &Path) -> anyhow::Result<Vec<DocumentScore>> {
    let mut label_files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".labels.json"))
        .collect();
    label_files.sort();
    let mut scores = Vec::new();
    for path in label_files {
        let labels: Value = serde_json::from_slice(&std::fs::read(&path)?)?;
        let id = labels["id"].as_str().unwrap_or_default().to_owned();
        let file = labels["file"].as_str().ok_or_else(|| anyhow::anyhow!("{}: no file", path.display()))?;
        let media_type = MediaType::from_content_type(labels["media_type"].as_str().unwrap_or_default())
            .ok_or_else(|| anyhow::anyhow!("{}: unknown media_type", path.display()))?;
        let bytes = std::fs::read(dir.join(file))?;
        let fields = labelled_fields(&labels);
        scores.push(score_document(&id, media_type, &bytes, &fields));
        // Twins of the document in other formats (a printed PDF, a Word copy) are scored against
        // the same labels: the values do not change with the format they are read from.
        for (twin, media_type) in [("pdf", MediaType::Pdf), ("docx", MediaType::Docx)] {
            if let Some(file) = labels[twin]["file"].as_str() {
                let bytes = std::fs::read(dir.join(file))?;
                scores.push(score_document(&id, media_type, &bytes, &fields));
            }
        }
    }
    Ok(scores)
}

/// The labelled fields of a labels file. Some labels keep `parties` beside `fields` rather than
/// inside it; they are scored all the same, so a role stated wrongly there is not overlooked.
fn labelled_fields(labels: &Value) -> Value {
    let mut fields = labels["fields"].clone();
    if let (Some(object), Some(parties)) = (fields.as_object_mut(), labels.get("parties")) {
        object.entry("parties").or_insert_with(|| parties.clone());
    }
    fields
}

/// Reads `bytes` as an upload would be read, extracts, and scores against `fields`.
pub fn score_document(id: &str, media_type: MediaType, bytes: &[u8], fields: &Value) -> DocumentScore {
    let mut score = DocumentScore { id: id.to_owned(), media_type, fields: Vec::new(), unreadable: None };
    match read_in_process(media_type, bytes, usize::MAX, UNBOUNDED_READ) {
        Ok(read) => score.fields = score_fields(&extract_credit_agreement(&read.text), fields),
        Err(error) => {
            score.unreadable = Some(error.to_string());
            score.fields = score_fields(&extract_credit_agreement(""), fields)
                .into_iter()
                .map(|s| Scored { outcome: Outcome::Missing, ..s })
                .collect();
        }
    }
    score
}

/// Scores an extraction against the `fields` of a labels file.
pub fn score_fields(extraction: &Extraction, fields: &Value) -> Vec<Scored> {
    let agreement = &extraction.agreement;
    let mut scored = Vec::new();
    let mut single = |field: &str, found: Option<String>, same: &dyn Fn(&Value, &str) -> bool| {
        let label = &fields[field];
        if label.is_null() && !fields.as_object().is_some_and(|o| o.contains_key(field)) {
            return;
        }
        scored.push(judge(extraction, field, &label["value"], found, same));
    };
    let document_type = if extraction.status == ExtractionStatus::IrrelevantDocument {
        "not_a_credit_agreement"
    } else {
        match agreement.amendment.as_ref().map(|a| *a.amendment_type.value()) {
            Some(AmendmentType::Amendment) => "amendment",
            Some(AmendmentType::AmendmentAndRestatement) => "amendment_and_restatement",
            None => "credit_agreement",
        }
    };
    single("document_type", Some(document_type.to_owned()), &text_equal);
    single("agreement_date", agreement.agreement_date.as_ref().map(|d| d.value().to_string()), &text_equal);
    let amended = agreement.amendment.as_ref().and_then(|a| a.amended_agreement_date.as_ref());
    single("amended_agreement_date", amended.map(|d| d.value().to_string()), &text_equal);
    let law = agreement.legal_agreement_identification.governing_law.as_ref();
    single("governing_law", law.map(|l| l.value().as_str().to_owned()), &text_equal);
    let agents: Vec<String> = agreement
        .parties
        .iter()
        .filter(|p| p.has_role(PartyRole::AdministrativeAgent) || p.has_role(PartyRole::FacilityAgent))
        .map(|p| p.name.value().clone())
        .collect();
    if fields.get("administrative_agent").is_some() {
        scored.extend(judge_names(extraction, "administrative_agent", &fields["administrative_agent"], &agents));
    }
    let borrowers: Vec<String> =
        agreement.parties.iter().filter(|p| p.has_role(PartyRole::Borrower)).map(|p| p.name.value().clone()).collect();
    if fields.get("borrowers").is_some() {
        scored.extend(judge_names(extraction, "borrowers", &fields["borrowers"], &borrowers));
    }
    if let Some(facilities) = fields["facilities"].as_array() {
        scored.extend(score_facilities(extraction, facilities));
    }
    if fields["parties"].is_object() {
        scored.extend(score_party_roles(extraction, fields));
    }
    if let Some(changes) = fields["changes"].as_array() {
        scored.extend(score_changes(extraction, changes));
    }
    if let Some(covenants) = fields["covenants"].as_array() {
        scored.extend(score_covenants(extraction, covenants));
    }
    // A document rightly found not to be a credit document has nothing extracted from it by
    // design: only its type, and the values it must not be given, are scored.
    if document_type == "not_a_credit_agreement" && fields["document_type"]["value"] == "not_a_credit_agreement" {
        scored.retain(|s| s.field == "document_type" || s.expected == "null");
    }
    scored
}

fn score_facilities(extraction: &Extraction, labelled: &[Value]) -> Vec<Scored> {
    let found = &extraction.agreement.facilities;
    let mut used = vec![false; found.len()];
    let mut scored = Vec::new();
    // Each label's facility: first those of the labelled amount and type, then of the amount,
    // then of the type (so two facilities of one amount pair by type, whatever their order).
    let same_amount = |label: &Value, f: &Facility| {
        label["commitment"]["value"]["amount"].as_str().is_some_and(|amount| {
            f.commitment.as_ref().is_some_and(|c| decimal_equal(&c.value().value.to_string(), amount))
        })
    };
    let same_type = |label: &Value, f: &Facility| {
        label["facility_type"]["value"]
            .as_str()
            .is_some_and(|kind| f.facility_type.as_ref().is_some_and(|t| t.value().as_str() == kind))
    };
    type Pairing<'a> = &'a dyn Fn(&Value, &Facility) -> bool;
    let tests: [Pairing; 3] =
        [&|l, f| same_amount(l, f) && same_type(l, f), &|l, f| same_amount(l, f), &|l, f| same_type(l, f)];
    let mut matches: Vec<Option<usize>> = vec![None; labelled.len()];
    for test in tests {
        for (index, label) in labelled.iter().enumerate() {
            if matches[index].is_some() {
                continue;
            }
            if let Some(i) = found.iter().enumerate().position(|(i, f)| !used[i] && test(label, f)) {
                used[i] = true;
                matches[index] = Some(i);
            }
        }
    }
    if labelled.len() == 1 && found.len() == 1 && matches[0].is_none() {
        used[0] = true;
        matches[0] = Some(0);
    }
    for (index, label) in labelled.iter().enumerate() {
        let matched = matches[index];
        let facility = matched.map(|i| &found[i]);
        let prefix = format!("facilities/{index}");
        for (field, value) in facility_fields(facility) {
            let label_field = &label[field];
            if label_field.is_null() && !label.as_object().is_some_and(|o| o.contains_key(field)) {
                continue;
            }
            let same: &dyn Fn(&Value, &str) -> bool = match field {
                "commitment" => &commitment_equal,
                "margin" | "floor" => &decimal_label_equal,
                "pricing_grid_levels" => {
                    &|expected, found| expected.as_u64().map(|n| n.to_string()).as_deref() == Some(found)
                }
                "commitment_fee" => &commitment_fee_equal,
                _ => &text_equal,
            };
            let mut one = judge(extraction, field, &label_field["value"], value, same);
            one.field = format!("{prefix}/{field}");
            scored.push(one);
        }
    }
    // The labels list every facility: one stated beyond them (a tranche or sublimit stated as a
    // facility of its own, a recital's existing facility) counts credit that is not there.
    for (j, facility) in found.iter().enumerate().filter(|(j, _)| !used[*j]) {
        let shown: Vec<String> =
            facility_fields(Some(facility)).into_iter().filter_map(|(k, v)| Some(format!("{k}={}", v?))).collect();
        scored.push(Scored {
            field: format!("facilities/+{j}"),
            expected: "null".to_owned(),
            found: shown.join(" "),
            outcome: Outcome::Wrong,
        });
    }
    scored
}

/// Every party role: the labels' `parties` lists each party the cover, preamble or signature
/// pages give a role, with all its roles. A labelled role found is correct, one not found missing;
/// a role stated for a name the labels do not give it is **wrong** — a co-documentation agent
/// stated as the administrative agent, the borrower stated as a lender. Lenders are scored only
/// when the labels list them all (`lenders_complete`).
fn score_party_roles(extraction: &Extraction, fields: &Value) -> Vec<Scored> {
    let parties = &fields["parties"];
    let lenders_complete = parties["lenders_complete"].as_bool().unwrap_or(false);
    let scored_elsewhere = |role: PartyRole| match role {
        PartyRole::Borrower => fields.get("borrowers").is_some(),
        PartyRole::AdministrativeAgent | PartyRole::FacilityAgent => fields.get("administrative_agent").is_some(),
        PartyRole::Lender => !lenders_complete,
        _ => false,
    };
    let labelled: Vec<(String, PartyRole)> = parties["value"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|party| {
            let name = party["name"].as_str().unwrap_or_default().to_owned();
            party["roles"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|role| PartyRole::ALL.iter().copied().find(|r| Some(r.as_str()) == role.as_str()))
                .map(move |role| (name.clone(), role))
        })
        .filter(|(_, role)| !scored_elsewhere(*role))
        .collect();
    let stated: Vec<(String, PartyRole)> = extraction
        .agreement
        .parties
        .iter()
        .flat_map(|party| party.roles.iter().map(move |role| (party.name.value().clone(), *role.value())))
        .filter(|(_, role)| !scored_elsewhere(*role))
        .collect();
    let mut used = vec![false; stated.len()];
    let mut scored = Vec::new();
    for (name, role) in &labelled {
        let hit = stated.iter().enumerate().position(|(i, (n, r))| !used[i] && r == role && same_name(n, name));
        if let Some(i) = hit {
            used[i] = true;
        }
        scored.push(Scored {
            field: format!("parties/{}", role.as_str()),
            expected: name.clone(),
            found: hit.map(|i| stated[i].0.clone()).unwrap_or_default(),
            outcome: if hit.is_some() { Outcome::Correct } else { Outcome::Missing },
        });
    }
    for ((name, role), _) in stated.iter().zip(&used).filter(|(_, used)| !**used) {
        scored.push(Scored {
            field: format!("parties/{}", role.as_str()),
            expected: "null".to_owned(),
            found: name.clone(),
            outcome: Outcome::Wrong,
        });
    }
    if !lenders_complete {
        scored.extend(obligors_stated_as_lenders(extraction, fields));
    }
    scored
}

/// When the labels do not list every lender, a stated lender is still wrong when it is one of
/// the labelled obligors: the borrower or a guarantor never lends to its own facility.
fn obligors_stated_as_lenders(extraction: &Extraction, fields: &Value) -> Vec<Scored> {
    let labelled_lender = |name: &str| {
        fields["parties"]["value"].as_array().into_iter().flatten().any(|party| {
            same_name(party["name"].as_str().unwrap_or_default(), name)
                && party["roles"].as_array().into_iter().flatten().any(|r| r.as_str() == Some("Lender"))
        })
    };
    let obligors: Vec<&str> = fields["borrowers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["value"].as_str())
        .chain(fields["parties"]["value"].as_array().into_iter().flatten().filter_map(|party| {
            let obligor = party["roles"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| matches!(r.as_str(), Some("Borrower" | "Guarantor")));
            obligor.then(|| party["name"].as_str()).flatten()
        }))
        .filter(|name| !labelled_lender(name))
        .collect();
    extraction
        .agreement
        .parties
        .iter()
        .filter(|party| party.roles.iter().any(|role| *role.value() == PartyRole::Lender))
        .filter(|party| obligors.iter().any(|obligor| same_name(party.name.value(), obligor)))
        .map(|party| Scored {
            field: "parties/Lender".to_owned(),
            expected: "null".to_owned(),
            found: party.name.value().clone(),
            outcome: Outcome::Wrong,
        })
        .collect()
}

/// The scored fields of one extracted facility (all `None` when no facility matched).
fn facility_fields(facility: Option<&Facility>) -> Vec<(&'static str, Option<String>)> {
    let Some(f) = facility else {
        return [
            "facility_type",
            "commitment",
            "floating_rate_index",
            "margin",
            "pricing_grid_levels",
            "maturity_date",
            "commitment_fee",
            "floor",
        ]
        .into_iter()
        .map(|field| (field, None))
        .collect();
    };
    vec![
        ("facility_type", f.facility_type.as_ref().map(|t| t.value().as_str().to_owned())),
        ("commitment", f.commitment.as_ref().map(|c| format!("{} {}", c.value().value, c.value().currency.as_str()))),
        ("floating_rate_index", f.floating_rate_index.as_ref().map(|i| i.value().as_str().to_owned())),
        ("margin", f.spread.as_ref().map(|s| s.value().to_string())),
        ("pricing_grid_levels", (!f.pricing_grid.is_empty()).then(|| f.pricing_grid.len().to_string())),
        ("maturity_date", f.termination_date.as_ref().map(|d| d.value().to_string())),
        ("commitment_fee", f.commitment_fee.as_ref().map(|c| fee_text(*c.value()))),
        ("floor", f.floor.as_ref().map(|d| d.value().to_string())),
    ]
}

/// One field: the label's `expected` value (JSON null: not stated) against what was `found`.
fn judge(
    extraction: &Extraction,
    field: &str,
    expected: &Value,
    found: Option<String>,
    same: &dyn Fn(&Value, &str) -> bool,
) -> Scored {
    let outcome = match (&found, expected.is_null()) {
        (None, true) => Outcome::Correct,
        (Some(_), true) => Outcome::Wrong,
        (Some(found), false) => {
            if same(expected, found) {
                Outcome::Correct
            } else {
                Outcome::Wrong
            }
        }
        (None, false) => {
            if withheld(extraction, field) {
                Outcome::Withheld
            } else {
                Outcome::Missing
            }
        }
    };
    Scored { field: field.to_owned(), expected: expected.to_string(), found: found.unwrap_or_default(), outcome }
}

/// An amendment's stated changes. The labels list every change the amendment states as a value
/// replaced (a date, an amount, a rate): each labelled change found with its term and values is
/// correct, one not found is missing, and every change found that the labels do not have — or
/// found with other values — is wrong.
fn score_changes(extraction: &Extraction, labelled: &[Value]) -> Vec<Scored> {
    let found: Vec<(String, Value, Value)> = extraction
        .agreement
        .amendment
        .iter()
        .flat_map(|a| &a.changes)
        .map(|c| {
            let before = c.before.as_ref().map_or(Value::Null, |b| serde_json::to_value(b).unwrap_or(Value::Null));
            (c.term.value().clone(), before, serde_json::to_value(&c.after).unwrap_or(Value::Null))
        })
        .collect();
    let shown = |(term, before, after): &(String, Value, Value)| format!("{term}: {before} -> {after}");
    let mut used = vec![false; found.len()];
    let mut scored = Vec::new();
    for (i, label) in labelled.iter().enumerate() {
        let term = label["term"].as_str().unwrap_or_default();
        let same_term = |f: &(String, Value, Value)| f.0.eq_ignore_ascii_case(term);
        let same_values = |f: &(String, Value, Value)| {
            same_stated_value(&label["before"], &f.1) && same_stated_value(&label["after"], &f.2)
        };
        let field = format!("changes/{i}");
        let hit = found.iter().enumerate().position(|(j, f)| !used[j] && same_term(f) && same_values(f));
        let (outcome, shown_found) = match hit {
            Some(j) => {
                used[j] = true;
                (Outcome::Correct, shown(&found[j]))
            }
            None => match found.iter().enumerate().position(|(j, f)| !used[j] && same_term(f)) {
                Some(j) => {
                    used[j] = true;
                    (Outcome::Wrong, shown(&found[j]))
                }
                None => (Outcome::Missing, String::new()),
            },
        };
        scored.push(Scored { field, expected: label.to_string(), found: shown_found, outcome });
    }
    for (j, change) in found.iter().enumerate().filter(|(j, _)| !used[*j]) {
        scored.push(Scored {
            field: format!("changes/+{j}"),
            expected: "null".to_owned(),
            found: shown(change),
            outcome: Outcome::Wrong,
        });
    }
    scored
}

/// Whether one metric name is the other's words with some words added before or after
/// ("Leverage" in "Maximum Leverage", "Leverage Ratio" in "Consolidated Leverage Ratio").
fn one_names_the_other(a: &str, b: &str) -> bool {
    let words = |name: &str| name.split_whitespace().map(str::to_ascii_lowercase).collect::<Vec<_>>();
    let (a, b) = (words(a), words(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty() && long.windows(short.len()).any(|w| w == short.as_slice())
}

/// Financial covenants, one scored field per covenant. The labels list every covenant on a
/// leverage, interest coverage, fixed charge coverage or debt service coverage ratio, each with
/// its levels in order. A covenant found with exactly those levels is correct; one not found, or
/// found with only some of them (in order), is missing; one found with a level the labels do not
/// have is wrong, and so is a covenant found that the labels do not list. Covenants on amounts
/// (liquidity, net worth, capital expenditures) are not labelled, so they are not scored here.
fn score_covenants(extraction: &Extraction, labelled: &[Value]) -> Vec<Scored> {
    let found: Vec<(String, String, Vec<Decimal>)> = extraction
        .agreement
        .financial_covenants
        .iter()
        .filter(|c| c.currency.is_none())
        .map(|c| {
            let levels = c.levels.iter().map(|l| *l.threshold.value()).collect();
            (c.covenant_type.value().as_str().to_owned(), c.metric.value().clone(), levels)
        })
        .collect();
    let shown = |(kind, metric, levels): &(String, String, Vec<Decimal>)| {
        format!("{kind} {metric}: {}", levels.iter().map(Decimal::to_string).collect::<Vec<_>>().join(", "))
    };
    let labels: Vec<(&str, &str, Vec<Decimal>)> = labelled
        .iter()
        .map(|label| {
            let kind = label["type"].as_str().unwrap_or_default();
            // Readers may describe the metric after its name ("Interest Coverage Ratio (EBITDA to
            // Interest Expense, four quarters)"): the name is what the agreement calls it.
            let metric = label["metric"].as_str().unwrap_or_default();
            let metric = metric.split_once(" (").map_or(metric, |(name, _)| name).trim();
            let expected =
                label["levels"].as_array().into_iter().flatten().filter_map(|l| l.as_str()?.parse().ok()).collect();
            (kind, metric, expected)
        })
        .collect();
    // A covenant is found under the name the label gives it, or else under a shorter or longer
    // name of the same kind ("Leverage" for a section headed "Maximum Leverage"), those with the
    // labelled levels first. A name of another covenant of that kind found first would only be
    // scored against the wrong levels: a wrong value either way, never a hidden one.
    let mut hits: Vec<Option<usize>> = vec![None; labels.len()];
    let mut used = vec![false; found.len()];
    for (i, (kind, metric, _)) in labels.iter().enumerate() {
        hits[i] =
            found.iter().enumerate().position(|(j, f)| !used[j] && f.0 == *kind && f.1.eq_ignore_ascii_case(metric));
        if let Some(j) = hits[i] {
            used[j] = true;
        }
    }
    for (i, (kind, metric, expected)) in labels.iter().enumerate() {
        if hits[i].is_some() {
            continue;
        }
        let candidates =
            || found.iter().enumerate().filter(|(j, f)| !used[*j] && f.0 == *kind && one_names_the_other(&f.1, metric));
        hits[i] = candidates().find(|(_, f)| f.2 == *expected).or_else(|| candidates().next()).map(|(j, _)| j);
        if let Some(j) = hits[i] {
            used[j] = true;
        }
    }
    let mut scored = Vec::new();
    for (i, ((_, _, expected), label)) in labels.iter().zip(labelled).enumerate() {
        let (outcome, shown_found) = match hits[i] {
            None => (Outcome::Missing, String::new()),
            Some(j) => {
                let levels = &found[j].2;
                let mut rest = expected.iter();
                let in_order = levels.iter().all(|level| rest.any(|e| e == level));
                let outcome = if levels == expected {
                    Outcome::Correct
                } else if in_order {
                    Outcome::Missing
                } else {
                    Outcome::Wrong
                };
                (outcome, shown(&found[j]))
            }
        };
        scored.push(Scored {
            field: format!("covenants/{i}"),
            expected: label.to_string(),
            found: shown_found,
            outcome,
        });
    }
    for (j, covenant) in found.iter().enumerate().filter(|(j, _)| !used[*j]) {
        scored.push(Scored {
            field: format!("covenants/+{j}"),
            expected: "null".to_owned(),
            found: shown(covenant),
            outcome: Outcome::Wrong,
        });
    }
    scored
}

/// A labelled value (a date or rate as a string, an amount as `{amount, currency}`, or null) and
/// an extracted one serialised the same way.
fn same_stated_value(label: &Value, found: &Value) -> bool {
    match (label, found) {
        (Value::Null, Value::Null) => true,
        (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b) || decimal_equal(a, b),
        (Value::Object(a), Value::Object(b)) => {
            // Labels write `amount`, CDM's money writes `value`.
            let amount = |o: &serde_json::Map<String, Value>| {
                o.get("amount").or_else(|| o.get("value")).map(value_text).unwrap_or_default()
            };
            decimal_equal(&amount(a), &amount(b)) && a.get("currency") == b.get("currency")
        }
        _ => false,
    }
}

fn value_text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_owned)
}

/// Borrowers or agents: every labelled name found is correct, every one not found is missing,
/// and every name stated that the labels do not have is wrong.
fn judge_names(extraction: &Extraction, field: &str, label: &Value, found: &[String]) -> Vec<Scored> {
    let expected: Vec<&Value> = match label {
        Value::Array(items) => items.iter().map(|item| &item["value"]).filter(|v| !v.is_null()).collect(),
        item => std::iter::once(&item["value"]).filter(|v| !v.is_null()).collect(),
    };
    let mut scored = Vec::new();
    let mut matched = vec![false; found.len()];
    for name in &expected {
        let name = name.as_str().unwrap_or_default();
        let hit = found.iter().position(|f| same_name(f, name));
        if let Some(i) = hit {
            matched[i] = true;
        }
        let mut one =
            judge(extraction, field, &Value::String(name.to_owned()), hit.map(|i| found[i].clone()), &text_equal);
        if hit.is_some() {
            one.outcome = Outcome::Correct;
        }
        scored.push(one);
    }
    for (name, _) in found.iter().zip(&matched).filter(|(_, m)| !**m) {
        scored.push(Scored {
            field: field.to_owned(),
            expected: if expected.is_empty() { "null".into() } else { format!("{expected:?}") },
            found: name.clone(),
            outcome: Outcome::Wrong,
        });
    }
    if expected.is_empty() && found.is_empty() {
        scored.push(Scored {
            field: field.to_owned(),
            expected: "null".into(),
            found: String::new(),
            outcome: Outcome::Correct,
        });
    }
    scored
}

/// The engine withholds a conflicting value, or one whose evidence fails, and says so in a warning
/// naming the field.
fn withheld(extraction: &Extraction, field: &str) -> bool {
    let needles: &[&str] = match field {
        "agreement_date" => &["agreementDate"],
        "governing_law" => &["governingLaw"],
        "maturity_date" => &["terminationDate"],
        "margin" => &["spread"],
        "commitment" => &["commitment"],
        "floating_rate_index" => &["floatingRateIndex"],
        "commitment_fee" => &["commitmentFee"],
        "floor" => &["/floor"],
        "borrowers" => &["[role=Borrower]"],
        "administrative_agent" => &["[role=AdministrativeAgent]", "[role=FacilityAgent]"],
        _ => return false,
    };
    extraction.warnings.iter().any(|w| needles.iter().any(|needle| w.contains(needle)))
}

fn text_equal(expected: &Value, found: &str) -> bool {
    expected.as_str().is_some_and(|e| e.eq_ignore_ascii_case(found))
}

/// A decimal label ("0.0125") against a stated decimal, compared as numbers.
fn decimal_label_equal(expected: &Value, found: &str) -> bool {
    expected.as_str().is_some_and(|e| decimal_equal(found, e))
}

fn decimal_equal(a: &str, b: &str) -> bool {
    match (a.parse::<Decimal>(), b.parse::<Decimal>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// How a stated commitment fee is shown and compared: a rate as its fraction ("0.0025"), a share
/// of the margin after `of_margin ` ("of_margin 0.35").
const OF_MARGIN: &str = "of_margin ";

fn fee_text(fee: CommitmentFee) -> String {
    match fee {
        CommitmentFee::Rate(rate) => rate.to_string(),
        CommitmentFee::PercentageOfMargin(share) => format!("{OF_MARGIN}{share}"),
    }
}

/// A labelled fee (`"0.0025"`, or `{"of_margin": "0.35"}`) against one stated: a rate equals a
/// rate, a share of the margin a share; never one the other.
fn commitment_fee_equal(expected: &Value, found: &str) -> bool {
    match (expected.as_str(), expected["of_margin"].as_str(), found.strip_prefix(OF_MARGIN)) {
        (Some(rate), _, None) => decimal_equal(rate, found),
        (None, Some(share), Some(stated)) => decimal_equal(share, stated),
        _ => false,
    }
}

fn commitment_equal(expected: &Value, found: &str) -> bool {
    let (amount, currency) = found.split_once(' ').unwrap_or((found, ""));
    expected["amount"].as_str().is_some_and(|e| decimal_equal(e, amount))
        && expected["currency"].as_str().is_some_and(|c| c.eq_ignore_ascii_case(currency))
}

/// Names compare without case, punctuation, a leading "the" and the usual abbreviations.
pub fn same_name(a: &str, b: &str) -> bool {
    normalise_name(a) == normalise_name(b)
}

fn normalise_name(name: &str) -> String {
    let lower = name.to_lowercase().replace(['’', '\''], "");
    let words: Vec<String> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '&')
        .filter(|w| !w.is_empty())
        .map(|w| match w {
            "incorporated" => "inc".to_owned(),
            "corporation" => "corp".to_owned(),
            "company" => "co".to_owned(),
            "limited" => "ltd".to_owned(),
            "and" => "&".to_owned(),
            other => other.to_owned(),
        })
        .collect();
    let words = if words.first().map(String::as_str) == Some("the") { &words[1..] } else { &words[..] };
    // "N.A." is how a national association abbreviates its name.
    words.join(" ").replace("national association", "n a")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(raw: &str) -> Decimal {
        raw.parse().expect("test decimal")
    }

    #[test]
    fn names_compare_as_analysts_read_them() {
        assert!(same_name("AMAZON.COM, INC.", "Amazon.com, Inc"));
        assert!(same_name("Wells Fargo Bank, N.A.", "WELLS FARGO BANK, NATIONAL ASSOCIATION"));
        assert!(same_name("The Bank of New York Company", "Bank of New York Co."));
        assert!(
            !same_name("Bank of America", "Bank of America, N.A. Securities"),
            "a name cut or extended is another name"
        );
    }

    #[test]
    fn a_null_label_is_correct_only_when_nothing_is_stated() {
        let fields = serde_json::json!({
            "governing_law": {"value": null, "quote": "no clause"},
            "agreement_date": {"value": "2024-03-15", "quote": "dated as of March 15, 2024"},
        });
        let nothing = score_fields(&extract_credit_agreement("Nothing to read here."), &fields);
        let outcomes: Vec<_> = nothing.iter().map(|s| (s.field.as_str(), s.outcome)).collect();
        assert!(outcomes.contains(&("governing_law", Outcome::Correct)));
        assert!(outcomes.contains(&("agreement_date", Outcome::Missing)));
        let html =
            std::fs::read(format!("{}/tests/fixtures/intake/agreement.htm", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let text = read_in_process(MediaType::Html, &html, usize::MAX, UNBOUNDED_READ).unwrap().text;
        let stated = score_fields(&extract_credit_agreement(&text), &fields);
        let law = stated.iter().find(|s| s.field == "governing_law").unwrap();
        assert_eq!((law.outcome, law.found.as_str()), (Outcome::Wrong, "USNY"));
        assert_eq!(stated.iter().find(|s| s.field == "agreement_date").unwrap().outcome, Outcome::Correct);
    }

    #[test]
    fn a_word_twin_is_read_as_a_word_file_and_scored_against_its_documents_labels() {
        let fixtures = format!("{}/tests/fixtures/intake", env!("CARGO_MANIFEST_DIR"));
        let dir = std::env::temp_dir().join(format!("creditflow-corpus-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["agreement.htm", "agreement.docx"] {
            std::fs::copy(format!("{fixtures}/{file}"), dir.join(file)).unwrap();
        }
        let labels = serde_json::json!({
            "id": "agreement",
            "file": "agreement.htm",
            "media_type": "text/html",
            "fields": {
                "agreement_date": {"value": "2024-03-15", "quote": "dated as of March 15, 2024"},
                "governing_law": {"value": "USNY", "quote": "THE LAW OF THE STATE OF NEW YORK"},
                "facilities": [{"pricing_grid_levels": {"value": 2, "quote": "Pricing Level"}}],
            },
            "docx": {"file": "agreement.docx"},
        });
        std::fs::write(dir.join("agreement.labels.json"), labels.to_string()).unwrap();
        let scores = score_corpus(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let scores = scores.unwrap();
        let formats: Vec<MediaType> = scores.iter().map(|s| s.media_type).collect();
        assert_eq!(formats, [MediaType::Html, MediaType::Docx]);
        let word = &scores[1];
        assert_eq!(word.unreadable, None);
        assert_eq!((word.count(Outcome::Correct), word.fields.len()), (3, 3), "{:?}", word.fields);
    }

    #[test]
    fn an_amendments_changes_are_scored_against_a_complete_list() {
        let text = "FIRST AMENDMENT TO CREDIT AGREEMENT\n\nTHIS FIRST AMENDMENT TO CREDIT AGREEMENT, dated as of May 1, \
            2024, is among ACME CORP., as the Borrower, and FIRST BANK, as Administrative Agent.\n\n(a) The date \
            \"June 30, 2025\" in the definition of \"Maturity Date\" is deleted and replaced with the date \"June 30, \
            2027\".\n\n(b) The amount \"$5,000,000\" in the definition of \"Swing Line Sublimit\" is deleted and \
            replaced with the amount of \"$7,500,000\".\n";
        let extraction = extract_credit_agreement(text);
        let fields = serde_json::json!({ "changes": [
            {"term": "Maturity Date", "before": "2025-06-30", "after": "2027-06-30", "quote": "…"},
            {"term": "Commitments", "before": null, "after": {"amount": "90000000", "currency": "USD"}, "quote": "…"},
        ]});
        let outcomes: Vec<_> = score_fields(&extraction, &fields).into_iter().map(|s| (s.field, s.outcome)).collect();
        assert_eq!(
            outcomes,
            [
                ("changes/0".to_owned(), Outcome::Correct),
                ("changes/1".to_owned(), Outcome::Missing),
                ("changes/+1".to_owned(), Outcome::Wrong),
            ],
            "a change the labels do not list is wrong"
        );
    }

    #[test]
    fn every_stated_party_role_is_scored_and_one_the_labels_do_not_give_is_wrong() {
        let text = "CREDIT AGREEMENT dated as of March 1, 2024 among ACME CORP., a Delaware corporation, as the \
            Borrower, the Lenders party hereto, FIRST BANK, N.A., as Administrative Agent, and SECOND BANK, as \
            Syndication Agent.\n\nSection 1.01 Defined Terms.";
        let extraction = extract_credit_agreement(text);
        let stated: Vec<String> = extraction
            .agreement
            .parties
            .iter()
            .flat_map(|p| p.roles.iter().map(move |r| format!("{} {}", p.name.value(), r.value().as_str())))
            .collect();
        assert!(stated.iter().any(|s| s.ends_with("SyndicationAgent")), "{stated:?}");
        let fields = serde_json::json!({
            "administrative_agent": {"value": "First Bank, N.A.", "quote": "…"},
            "borrowers": [{"value": "Acme Corp.", "quote": "…"}],
            "parties": {"lenders_complete": false, "value": [
                {"name": "Second Bank", "roles": ["DocumentationAgent"], "quote": "…"},
            ]},
        });
        let outcomes: Vec<_> = score_fields(&extraction, &fields)
            .into_iter()
            .filter(|s| s.field.starts_with("parties/"))
            .map(|s| (s.field, s.outcome))
            .collect();
        assert_eq!(
            outcomes,
            [
                ("parties/DocumentationAgent".to_owned(), Outcome::Missing),
                ("parties/SyndicationAgent".to_owned(), Outcome::Wrong),
            ],
            "a role the labels do not give the name is wrong; the agent is scored by its own field"
        );
    }

    #[test]
    fn parties_labelled_beside_the_fields_are_scored_like_those_inside() {
        let parties = serde_json::json!({"lenders_complete": false, "value": [
            {"name": "Acme Corp.", "roles": ["Borrower"], "quote": "…"},
        ]});
        let beside =
            serde_json::json!({"fields": {"document_type": {"value": "credit_agreement"}}, "parties": parties});
        let inside =
            serde_json::json!({"fields": {"document_type": {"value": "credit_agreement"}, "parties": parties}});
        assert_eq!(labelled_fields(&beside), labelled_fields(&inside));
        assert_eq!(labelled_fields(&beside)["parties"], parties);
    }

    #[test]
    fn a_labelled_obligor_stated_as_a_lender_is_wrong_even_when_the_lenders_are_not_all_listed() {
        let text = "CREDIT AGREEMENT dated as of March 1, 2024 among ACME CORP., as Borrower, and FIRST BANK, N.A., \
            as Administrative Agent.\n";
        let mut extraction = extract_credit_agreement(text);
        // The extraction as a defect would state it: the borrower also given the lenders' role.
        let borrower =
            extraction.agreement.parties.iter_mut().find(|p| p.name.value() == "ACME CORP.").expect("borrower");
        borrower.roles.push(borrower.roles[0].clone().map(|_| PartyRole::Lender));
        let fields = serde_json::json!({
            "parties": {"lenders_complete": false, "value": [
                {"name": "Acme Corp.", "roles": ["Borrower"], "quote": "…"},
                {"name": "First Bank, N.A.", "roles": ["AdministrativeAgent", "Lender"], "quote": "…"},
            ]},
        });
        let wrong: Vec<_> = score_fields(&extraction, &fields)
            .into_iter()
            .filter(|s| s.outcome == Outcome::Wrong)
            .map(|s| (s.field, s.found))
            .collect();
        assert_eq!(wrong, [("parties/Lender".to_owned(), "ACME CORP.".to_owned())]);
    }

    #[test]
    fn a_facility_stated_beyond_the_labelled_ones_is_wrong() {
        let text = "CREDIT AGREEMENT dated as of March 1, 2024 among ACME CORP., as Borrower, and FIRST BANK, as \
            Administrative Agent.\n\n\"Revolving Commitment\" means $50,000,000.\n\n\"Term Loan Commitment\" means \
            $25,000,000.\n";
        let extraction = extract_credit_agreement(text);
        assert_eq!(extraction.agreement.facilities.len(), 2, "{:?}", extraction.agreement.facilities);
        let fields = serde_json::json!({ "facilities": [
            {"facility_type": {"value": "RevolvingCredit", "quote": "…"}},
        ]});
        let outcomes: Vec<_> = score_fields(&extraction, &fields).into_iter().map(|s| (s.field, s.outcome)).collect();
        assert_eq!(outcomes.last().map(|(f, o)| (f.starts_with("facilities/+"), *o)), Some((true, Outcome::Wrong)));
    }

    #[test]
    fn a_facilitys_commitment_fee_and_floor_are_scored_when_labelled() {
        let text = "CREDIT AGREEMENT dated as of March 1, 2024 among ACME CORP., as Borrower, and FIRST BANK, as \
            Administrative Agent.\n\n\"Revolving Commitment\" means $50,000,000.\n\nThe Borrower shall pay a \
            commitment fee of 0.15% per annum on the daily unused Revolving Commitments, payable quarterly in \
            arrears.\n\nEach Revolving Loan bears interest at Term SOFR plus 1.50% per annum.\n\n\"Term SOFR\" means \
            the forward-looking term rate; provided that if Term SOFR would be less than zero, it shall be deemed to \
            be zero.\n";
        let extraction = extract_credit_agreement(text);
        let facility = &extraction.agreement.facilities[0];
        assert_eq!(facility.commitment_fee.as_ref().map(|c| *c.value()), Some(CommitmentFee::Rate(dec("0.0015"))));
        assert_eq!(facility.floor.as_ref().map(|f| *f.value()), Some(Decimal::ZERO));
        let outcomes = |fee: Value, floor: Value| -> Vec<(String, Outcome)> {
            let mut label = serde_json::json!({"facility_type": {"value": "RevolvingCredit", "quote": "…"}});
            for (field, value) in [("commitment_fee", fee), ("floor", floor)] {
                if !value.is_null() {
                    label[field] = value;
                }
            }
            let fields = serde_json::json!({ "facilities": [label] });
            score_fields(&extraction, &fields)
                .into_iter()
                .filter(|s| s.field.ends_with("commitment_fee") || s.field.ends_with("floor"))
                .map(|s| (s.field, s.outcome))
                .collect()
        };
        let fee = |f: &str| (format!("facilities/0/{f}"), Outcome::Correct);
        let wrong = |f: &str| (format!("facilities/0/{f}"), Outcome::Wrong);
        let right = outcomes(
            serde_json::json!({"value": "0.0015", "quote": "…"}),
            serde_json::json!({"value": "0.00", "quote": "…"}),
        );
        assert_eq!(right, [fee("commitment_fee"), fee("floor")], "compared as decimals, not text");
        let other = outcomes(
            serde_json::json!({"value": {"of_margin": "0.0015"}, "quote": "…"}),
            serde_json::json!({"value": null, "quote": "…", "why": "no floor"}),
        );
        assert_eq!(other, [wrong("commitment_fee"), wrong("floor")], "a share of the margin is no rate");
        assert!(outcomes(Value::Null, Value::Null).is_empty(), "a field the labels leave out is not scored");
        assert!(commitment_fee_equal(&serde_json::json!({"of_margin": "0.35"}), "of_margin 0.350"));
        assert!(!commitment_fee_equal(&serde_json::json!("0.35"), "of_margin 0.35"));
    }

    #[test]
    fn a_covenant_named_in_fewer_words_than_its_label_is_scored_by_its_levels() {
        let text = "CREDIT AGREEMENT\n\nSection 7.11 Financial Covenants.\n\n(a) Maximum Leverage. Permit the Leverage to \
            exceed 4.50 to 1.00.\n\n(b) Interest Coverage Ratio. Permit the Interest Coverage Ratio to be less than \
            3.00 to 1.00.\n\nSection 7.12 Liens.";
        let extraction = extract_credit_agreement(text);
        let fields = serde_json::json!({ "covenants": [
            {"type": "MaximumLeverageRatio", "metric": "Maximum Leverage", "levels": ["4.50"], "quote": "…"},
            {"type": "MinimumInterestCoverageRatio", "metric": "Minimum Interest Coverage Ratio", "levels": ["2.50"], "quote": "…"},
        ]});
        let outcomes: Vec<_> = score_fields(&extraction, &fields).into_iter().map(|s| (s.field, s.outcome)).collect();
        // The right levels under a shorter name are right; other levels are wrong whatever the name.
        assert_eq!(
            outcomes,
            [("covenants/0".to_owned(), Outcome::Correct), ("covenants/1".to_owned(), Outcome::Wrong)]
        );
        // A name of another kind is never taken for the label's.
        let fields = serde_json::json!({ "covenants": [
            {"type": "MinimumFixedChargeCoverageRatio", "metric": "Leverage", "levels": ["4.50"], "quote": "…"},
        ]});
        let outcomes: Vec<_> = score_fields(&extraction, &fields).into_iter().map(|s| s.outcome).collect();
        assert_eq!(outcomes, [Outcome::Missing, Outcome::Wrong, Outcome::Wrong]);
    }

    #[test]
    fn covenants_are_scored_whole_and_an_unlisted_one_is_wrong() {
        let text = "CREDIT AGREEMENT\n\nSection 7.11 Financial Covenants.\n\n(a) Leverage Ratio. Permit the Leverage Ratio to exceed \
            4.50 to 1.00 for the fiscal quarters ending on or before June 30, 2025 and 4.00 to 1.00 thereafter.\n\n\
            (b) Interest Coverage Ratio. Permit the Interest Coverage Ratio to be less than 3.00 to 1.00.\n\n\
            Section 7.12 Liens.";
        let extraction = extract_credit_agreement(text);
        let fields = serde_json::json!({ "covenants": [
            {"type": "MaximumLeverageRatio", "metric": "Leverage Ratio", "levels": ["4.50", "4.00"], "quote": "…"},
        ]});
        let outcomes: Vec<_> = score_fields(&extraction, &fields).into_iter().map(|s| (s.field, s.outcome)).collect();
        assert_eq!(
            outcomes,
            [("covenants/0".to_owned(), Outcome::Correct), ("covenants/+1".to_owned(), Outcome::Wrong)]
        );
    }
}
